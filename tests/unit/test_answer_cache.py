"""api/answers: read answers computed off the event loop, once per revision of the caches they read."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from jupyter_accel.api.answers import Answers
from jupyter_accel.models import Visibility
from jupyter_accel.push import depends
from jupyter_accel.services.errors import Invalid


class Caches:
    """Revisions per cache key, as the IdentityCaches keeps them (bumped by each change an informer applies)."""

    def __init__(self) -> None:
        self.revisions: dict[str, int] = {}

    def revision(self, keys: tuple[str, ...]) -> tuple[object, ...]:
        return tuple(self.revisions.get(k, 0) for k in keys)

    def change(self, key: str) -> None:
        self.revisions[key] = self.revisions.get(key, 0) + 1


class Counting:
    def __init__(self, delay: float = 0.0) -> None:
        self.calls = 0
        self.threads: set[str] = set()
        self.delay = delay

    def __call__(self) -> Visibility:
        self.calls += 1
        self.threads.add(threading.current_thread().name)
        time.sleep(self.delay)
        return Visibility(message=f"answer {self.calls}")


def run(coro):
    return asyncio.run(coro)


def test_an_answer_is_computed_once_per_revision_and_off_the_event_loop():
    hub, views, build = Caches(), Answers(), Counting()

    async def scenario():
        first = await views.get(hub, "inventory", (), build)
        again = await views.get(hub, "inventory", (), build)
        hub.change("workloads")  # not read by the inventory
        still = await views.get(hub, "inventory", (), build)
        hub.change("allpods")
        new = await views.get(hub, "inventory", (), build)
        return first, again, still, new

    first, again, still, new = run(scenario())
    assert first == again == still and b"answer 1" in first
    assert b"answer 2" in new and build.calls == 2
    assert build.threads and all(t.startswith("accel-answers") for t in build.threads)
    assert "allpods" in depends("inventory") and "workloads" not in depends("inventory")


def test_requests_that_arrive_together_share_one_computation():
    hub, views, build = Caches(), Answers(), Counting(delay=0.2)

    async def scenario():
        return await asyncio.gather(*(views.get(hub, "queues", (), build) for _ in range(20)))

    answers = run(scenario())
    assert build.calls == 1 and len(set(answers)) == 1


def test_the_event_loop_keeps_answering_while_a_view_is_computed():
    hub, views, build = Caches(), Answers(), Counting(delay=0.5)

    async def scenario():
        task = asyncio.ensure_future(views.get(hub, "jobs", ("namespace",), build))
        gaps, last = [], time.monotonic()
        while not task.done():
            await asyncio.sleep(0.01)
            now = time.monotonic()
            gaps.append(now - last)
            last = now
        return gaps

    gaps = run(scenario())
    assert len(gaps) > 10 and max(gaps) < 0.2  # a build on the loop would show as one 0.5 s gap


def test_max_age_recomputes_answers_that_name_times():
    """An answer that names times relative to now (a job's time left) is computed again after max_age even when
    its caches did not change; the read that finds it aged gets it at once and starts the next computation (only
    the clock moved), so no read waits for a whole computation of /jobs."""
    hub, views, build = Caches(), Answers(), Counting(delay=0.05)

    async def scenario():
        await views.get(hub, "jobs", ("mine",), build, max_age=0.1)
        await views.get(hub, "jobs", ("mine",), build, max_age=0.1)
        await asyncio.sleep(0.15)
        t0 = time.monotonic()
        aged = await views.get(hub, "jobs", ("mine",), build, max_age=0.1)
        waited = time.monotonic() - t0
        await asyncio.sleep(0.1)
        return aged, waited, await views.get(hub, "jobs", ("mine",), build, max_age=0.1)

    aged, waited, new = run(scenario())
    assert b"answer 1" in aged and waited < 0.03
    assert b"answer 2" in new and build.calls == 2


def test_a_refused_request_leaves_nothing_behind():
    hub, views = Caches(), Answers()

    def refuse() -> Visibility:
        raise Invalid("model: 'x' is not an accelerator model of this cluster", field="model")

    async def scenario():
        with pytest.raises(Invalid):
            await views.get(hub, "inventory", ("nodes", "x", 0, 100), refuse)

    run(scenario())
    assert views._entries == {}


def test_refresh_computes_recently_read_views_of_changed_topics_before_the_push():
    hub, views = Caches(), Answers()
    inventory, queues = Counting(), Counting()

    async def scenario():
        await views.get(hub, "inventory", (), inventory)
        await views.get(hub, "queues", (), queues)
        hub.change("nodes")
        await views.refresh(hub, {"inventory"})
        await views.refresh(hub, {"queues"})  # the queues' caches did not change: nothing to do
        return await views.get(hub, "inventory", (), inventory)

    body = run(scenario())
    assert inventory.calls == 2 and queues.calls == 1
    assert b"answer 2" in body  # the read after the push found the answer ready


def test_a_new_identity_does_not_see_the_old_answers():
    views, build = Answers(), Counting()

    async def scenario():
        await views.get(Caches(), "profiles", (), build)
        await views.get(Caches(), "profiles", (), build)

    run(scenario())
    assert build.calls == 2


def test_while_the_caches_churn_a_slow_view_answers_at_once_and_computes_the_next_answer_ahead():
    hub, views, build = Caches(), Answers(), Counting(delay=0.2)

    async def scenario():
        await views.get(hub, "inventory", (), build)
        hub.change("allpods")  # within a second of the last answer: the caches churn
        t0 = time.monotonic()
        stale = await views.get(hub, "inventory", (), build)
        waited = time.monotonic() - t0
        await asyncio.sleep(0.3)  # the computation ahead has not begun: the last one rests 2 x 0.2 s
        resting = build.calls
        await asyncio.sleep(0.45)  # it began when the last had rested, and has ended
        return stale, waited, resting, await views.get(hub, "inventory", (), build)

    stale, waited, resting, fresh = run(scenario())
    assert b"answer 1" in stale and waited < 0.1
    assert resting == 1
    assert b"answer 2" in fresh and build.calls == 2


def test_while_the_caches_churn_a_slow_view_is_computed_at_most_a_third_of_the_time():
    """A slow answer read back to back while its caches change all the time: its computations, one after the other,
    leave the answer threads idle at least twice as long as they ran (REST: the GIL and the cores go to the loop)."""
    hub, views, build = Caches(), Answers(), Counting(delay=0.1)

    async def scenario():
        await views.get(hub, "inventory", (), build)
        t0, reads = time.monotonic(), 0
        while time.monotonic() - t0 < 1.5:
            hub.change("allpods")
            await views.get(hub, "inventory", (), build)
            if reads % 10 == 0:  # a push now and then
                await views.refresh(hub, {"inventory"})
            reads += 1
            await asyncio.sleep(0.01)
        return time.monotonic() - t0

    elapsed = run(scenario())
    busy = (build.calls - 1) * 0.1
    assert build.calls >= 3  # the answer keeps following the caches
    assert busy <= elapsed / 3 + 0.15, (build.calls, elapsed)


def test_a_read_waits_for_the_new_answer_after_a_quiet_change_of_a_quick_view_and_of_the_jobs(monkeypatch):
    from jupyter_accel.api import answers as views_module

    hub, views = Caches(), Answers()
    slow, quick, jobs = Counting(delay=0.06), Counting(), Counting(delay=0.06)

    async def scenario():
        await views.get(hub, "inventory", (), slow)
        await views.get(hub, "inventory", ("nodes", "m", 0, 100), quick)
        await views.get(hub, "jobs", ("mine",), jobs)
        hub.change("pods")  # the user's own jobs: slow or not, a read after a write sees it
        hub.change("allpods")
        answers = [await views.get(hub, "jobs", ("mine",), jobs)]
        answers.append(await views.get(hub, "inventory", ("nodes", "m", 0, 100), quick))  # quick: wait for it
        monkeypatch.setattr(views_module, "FRESH_S", 0.05)
        await asyncio.sleep(0.06)  # the last answer is older than FRESH_S: a quiet change
        answers.append(await views.get(hub, "inventory", (), slow))
        return answers

    assert all(b"answer 2" in a for a in run(scenario()))
