# The two commands of the README. Both install what they need first (scripts/bootstrap.sh, idempotent).
.PHONY: demo test test-fast
demo:
	bash scripts/demo.sh
test:
	bash scripts/test.sh
test-fast:
	bash scripts/test-fast.sh
