"""ipywidgets 8 front-end: a live accelerator + quota view, a job launcher with a live fit check, a job monitor.

Live updates come from the server's /stream (Server-Sent Events) read by one background thread per widget;
when the stream cannot be opened the thread falls back to a bounded poll. Closing a widget stops its thread.
"""

from .accelerators import AcceleratorView
from .launcher import JobLauncher
from .monitor import JobMonitor
from .streams import Follower, LogFollower

__all__ = ["AcceleratorView", "Follower", "JobLauncher", "JobMonitor", "LogFollower"]
