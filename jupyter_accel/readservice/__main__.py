"""`python -m jupyter_accel.readservice [--port 8080] [--address 0.0.0.0] [--kubeconfig PATH]` (see server.py)."""

from .server import main

raise SystemExit(main())
