"""push.Broadcaster: changes from informer threads become one debounced message per batch, sent after the changed
views are computed."""

from __future__ import annotations

import asyncio
import itertools
import threading

from jupyter_accel.push import Broadcaster, depends


def test_a_burst_from_threads_is_one_message_sent_after_the_views_are_ready():
    async def scenario():
        prepared: list[set[str]] = []

        async def prepare(topics: set[str]) -> None:
            await asyncio.sleep(0.05)
            prepared.append(topics)

        b = Broadcaster(asyncio.get_running_loop(), debounce=0.1, prepare=prepare)
        b.GATHER = 0.5  # the whole burst within the first gathering, however slow the machine
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


def test_a_change_after_a_quiet_spell_goes_at_once_a_stream_of_them_once_per_interval():
    async def scenario():
        loop = asyncio.get_running_loop()
        b = Broadcaster(loop, debounce=0.4)
        queue = b.subscribe()
        t0 = loop.time()
        b.notify_threadsafe("allpods")
        await asyncio.wait_for(queue.get(), 2)
        first = loop.time() - t0
        sent: list[float] = []
        t1 = loop.time()
        while loop.time() - t1 < 1.0:  # a change every 20 ms for a second
            b.notify_threadsafe("pods")
            await asyncio.sleep(0.02)
            while not queue.empty():
                queue.get_nowait()
                sent.append(loop.time())
        await asyncio.sleep(0.5)
        while not queue.empty():
            queue.get_nowait()
            sent.append(loop.time())
        return first, sent

    first, sent = asyncio.run(scenario())
    assert first < 0.3  # not the whole interval: GATHER (0.05 s) and the loop's turn
    assert 2 <= len(sent) <= 4  # 50 changes in 1 s, pushed once per 0.4 s, the last after the stream
    assert all(b - a >= 0.35 for a, b in itertools.pairwise(sent))


def test_every_cache_a_view_reads_is_one_of_its_topics():
    assert set(depends("inventory")) == {"allpods", "allocations", "nodes"}  # allocations: from the read service
    assert {"pods", "events", "workloads", "pending", "nodes", "localqueues"} <= set(depends("jobs"))
