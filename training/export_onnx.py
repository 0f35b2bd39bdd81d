"""The old path of :mod:`training.export.onnx` and ``python -m training.export_onnx``. It
moved (see CHANGELOG.md); this module keeps the old imports working."""

from training.common.moved import forward
from training.export.onnx import *  # noqa: F403 - the public names, re-exported
from training.export.onnx import main

__getattr__ = forward(__name__, "training.export.onnx")

if __name__ == "__main__":
    raise SystemExit(main())
