"""cluster/gil.py: the switch interval is shortened for the event loop's sake, never lengthened."""

import sys

import pytest

from jupyter_accel.cluster.gil import SWITCH_INTERVAL, share_with_event_loop


@pytest.fixture
def restore_interval():
    before = sys.getswitchinterval()
    yield
    sys.setswitchinterval(before)


def test_the_default_interval_is_shortened(restore_interval):
    sys.setswitchinterval(0.005)
    share_with_event_loop()
    assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL)


def test_a_shorter_interval_set_by_someone_else_stays(restore_interval):
    sys.setswitchinterval(SWITCH_INTERVAL / 2)
    share_with_event_loop()
    assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL / 2)
