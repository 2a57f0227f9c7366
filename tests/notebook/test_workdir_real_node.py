"""A real project as a job (issue #26): a folder with a package and a config file, sent with %%accel_job --workdir,
runs on devcluster's real node, importing its own modules and reading its own files there."""

from __future__ import annotations

import pytest

NODE_PARTS = ["kubelet", "containerd", "runc", "cni-plugins", "coredns", "node-image"]
pytestmark = [pytest.mark.cluster, pytest.mark.devcluster(needs=NODE_PARTS)]


def test_a_project_folder_runs_on_the_real_node_with_its_package_and_config(real_node_server, node_kernel, unique):
    name = unique("proj")
    folder = real_node_server.root_dir / name
    (folder / "trainer").mkdir(parents=True)
    (folder / "trainer" / "__init__.py").write_text("")
    (folder / "trainer" / "model.py").write_text(
        "def fit(epochs):\n    return sum(range(epochs))\n"  # a stand-in for training: pure Python, on CPU
    )
    (folder / "config.ini").write_text("[train]\nepochs = 5\n")
    (folder / ".ipynb_checkpoints").mkdir()
    (folder / ".ipynb_checkpoints" / "left-out.txt").write_text("never sent")
    cell = (
        "import configparser, os\n"
        "from trainer.model import fit\n"
        "cfg = configparser.ConfigParser(); cfg.read('config.ini')\n"
        "epochs = cfg.getint('train', 'epochs')\n"
        "print(f'loss after {epochs} epochs: {fit(epochs)}', flush=True)\n"
        "print('files:', sorted(os.listdir('.')), flush=True)\n"
    )
    result = node_kernel.run(
        f"%%accel_job --kind pytorch --workers 1 --cpu 500m --memory 1Gi --interpreter python --workdir {folder} "
        f"--name {name} --wait --timeout 240\n{cell}",
        timeout=300,
    )
    try:
        assert result.ok, result.error
        out = result.stream()
        assert "loss after 5 epochs: 10" in out, out
        assert "files: ['config.ini', 'trainer']" in out, out
    finally:
        node_kernel.run(f"%accel delete {name}")


def test_a_folder_outside_the_servers_files_is_refused_and_nothing_is_created(node_kernel, unique):
    name = unique("outside")
    result = node_kernel.run(f"%%accel_job --kind pytorch --workdir /etc --name {name}\nprint(1)\n")
    assert not result.ok
    assert "workdir" in "\n".join(result.error["traceback"]) and "outside the Jupyter server" in "\n".join(
        result.error["traceback"]
    )
    gone = node_kernel.run(f"%accel status {name}")
    assert not gone.ok and "No job named" in "\n".join(gone.error["traceback"])
