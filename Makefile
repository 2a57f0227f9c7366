# The two commands of the README. Both install what they need first (scripts/bootstrap.sh, idempotent).
.PHONY: demo test
demo:
	bash scripts/demo.sh
test:
	bash scripts/test.sh
