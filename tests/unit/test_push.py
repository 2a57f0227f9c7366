"""push.Broadcaster: changes from informer threads become one debounced message per batch, sent after the changed
views are computed."""

from __future__ import annotations

import asyncio
import threading

from jupyter_accel.push import Broadcaster, depends


def test_a_burst_from_threads_is_one_message_sent_after_the_views_are_ready():
    async def scenario():
        prepared: list[set[str]] = []

        async def prepare(topics: set[str]) -> None:
            await asyncio.sleep(0.05)
            prepared.append(topics)

        b = Broadcaster(asyncio.get_running_loop(), debounce=0.1, prepare=prepare)
        queue = b.subscribe()
        threads = [
            threading.Thread(target=lambda k=k: [b.notify_threadsafe(k) for _ in range(2000)])
            for k in ("allpods", "workloads", "events")
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        msg = await asyncio.wait_for(queue.get(), 2)
        await asyncio.sleep(0.3)
        return msg, queue.qsize(), prepared

    msg, more, prepared = asyncio.run(scenario())
    assert msg["topics"] == ["inventory", "jobs", "queues", "workloads"]
    assert more == 0  # 6,000 changes, one message
    assert prepared == [set(msg["topics"])]  # computed before it was sent


def test_every_cache_a_view_reads_is_one_of_its_topics():
    assert set(depends("inventory")) == {"allpods", "allocations", "nodes"}  # allocations: from the read service
    assert {"pods", "events", "workloads", "pending", "nodes", "localqueues"} <= set(depends("jobs"))
