"""Exports of trained policies: :mod:`training.export.onnx` writes a MaskablePPO ``.zip``
(or an RLlib module) as the project's ONNX policy file (``python -m training.export_onnx``)."""
