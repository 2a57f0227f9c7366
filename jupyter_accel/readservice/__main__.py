"""`python -m jupyter_accel.readservice [--port 8080] [--address 127.0.0.1] [--kubeconfig PATH]` (see server.py)."""

from .server import main

raise SystemExit(main())
