"""Export a trained policy to ONNX, for frontends that run it without Python or torch.

    python -m training.export_onnx CHECKPOINT OUT.onnx [--opset 17]

The ONNX model is the policy network of a MaskablePPO checkpoint of either variant with
the action mask applied inside: inputs ``observation`` float32 ``[N, OBS_SIZE]`` and
``action_mask`` int8 ``[N, NUM_ACTIONS]`` (the env's own mask), output ``logits`` float32
``[N, NUM_ACTIONS]`` (masked log-probabilities, illegal actions about -1e8), with the
variant's sizes (Classic 202 and 91, Hand and Foot 245 and 98); the full
table is in :mod:`canasta_env.bots.onnx_policy`, whose
:class:`~canasta_env.bots.onnx_policy.OnnxPolicy` runs it with onnxruntime as a
:class:`canasta_env.policies.Policy` (so ``canasta_env.bots.Bot("model.onnx")`` works
without torch). The export needs the ``training`` extra and ``onnx``.

``--opset`` is an ONNX opset from :data:`MIN_OPSET` (9: opsets 7 and 8 lack ``Expand`` /
``Where`` as this network needs them) to the newest that torch's TorchScript exporter
writes (20 with torch 2.9). Exit codes: 0 written and checked, 1 written but the
self-check (ONNX argmax against torch on 64 random masked inputs) disagrees, 2 refused
input (a bad option, a checkpoint that is missing or corrupt, an output path
that is a directory or cannot be written): one line on stderr, never a traceback.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from canasta_env import __version__
from canasta_env.bots.loader import KNOWN_SIZES, VARIANT_NAMES
from canasta_env.bots.onnx_policy import INPUTS, MASKED_LOGIT, OUTPUT, OnnxPolicy
from canasta_env.cli import ArgumentParser, fail, interrupted, require_extra

#: lowest opset this network exports with (7 and 8 lack Expand / Where as it uses them)
MIN_OPSET = 9


class ExportError(ValueError):
    """The export cannot be done as asked: an opset outside the supported range, an
    output path that is a directory or cannot be written, or an exporter failure."""


def max_opset() -> int:
    """The newest opset torch's TorchScript exporter writes (imports torch)."""
    from torch.onnx import _constants

    return int(getattr(_constants, "ONNX_TORCHSCRIPT_EXPORTER_MAX_OPSET",
                       _constants.ONNX_MAX_OPSET))


def check_opset(opset) -> None:
    """Refuse an opset this exporter cannot write: not an int (bools included), or outside
    :data:`MIN_OPSET` .. :func:`max_opset`.

    Raises:
        ExportError: with the range in the message.
    """
    top = max_opset()
    if isinstance(opset, bool) or not isinstance(opset, int) or not MIN_OPSET <= opset <= top:
        raise ExportError(f"opset must be an int from {MIN_OPSET} to {top} (this torch's "
                          f"TorchScript exporter), got {opset!r}")


def masked_policy_module(policy):
    """A ``torch.nn.Module`` ``(observation, action_mask) -> logits`` around the actor of
    an sb3 ``ActorCriticPolicy`` (``model.policy``)."""
    import torch

    class MaskedPolicy(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.policy = policy

        def forward(self, observation, action_mask):
            p = self.policy
            features = p.extract_features(observation, p.pi_features_extractor)
            latent = p.mlp_extractor.forward_actor(features)
            logits = p.action_net(latent)
            logits = torch.where(action_mask != 0, logits, torch.full_like(logits, MASKED_LOGIT))
            return torch.log_softmax(logits, dim=-1)

    return MaskedPolicy().eval()


def export_onnx(checkpoint: str | Path, out: str | Path, opset: int = 17) -> Path:
    """Write the ONNX model of ``checkpoint`` to ``out`` and check it with ``onnx``.

    Raises:
        ExportError: ``opset`` is not an int from :data:`MIN_OPSET` to
            :func:`max_opset`; ``out`` is a directory or cannot be written; the exporter
            fails.
        CheckpointError: the checkpoint is missing, corrupt, or for spaces that are no
            variant's.
    """
    from training.sb3.checkpoint import CheckpointError, load_model

    check_opset(opset)
    out = Path(out)
    if out.is_dir():
        raise ExportError(f"output {out} is a directory; name the .onnx file to write")
    model = load_model(checkpoint)
    shape, n = model.observation_space.shape, int(model.action_space.n)
    if len(shape) != 1 or (shape[0], n) not in KNOWN_SIZES:
        known = "; ".join(f"{VARIANT_NAMES[v]} ({o},), {a} actions"
                          for (o, a), v in KNOWN_SIZES.items())
        raise CheckpointError(
            f"checkpoint {checkpoint} has observation shape {shape} and {n} actions, no "
            f"variant's ({known})")
    module = masked_policy_module(model.policy)
    return write_onnx(module, out, opset, {"checkpoint": Path(checkpoint).name},
                      sizes=(shape[0], n))


def write_onnx(module, out: Path, opset: int, meta: dict[str, str],
               sizes: tuple[int, int] = (202, 91)) -> Path:
    """Export ``module`` (``(observation float32 [N, OBS_SIZE], action_mask int8
    [N, NUM_ACTIONS]) -> logits``, ``sizes`` = ``(OBS_SIZE, NUM_ACTIONS)``: Classic's by
    default, Hand and Foot's ``(245, 98)``) to ``out`` in the format of
    :mod:`canasta_env.bots.onnx_policy`, with the format's metadata plus ``meta``; check
    it with ``onnx``. Shared by this exporter and :func:`training.rllib.module.export_onnx`.

    Raises:
        ExportError: a bad ``opset`` (:func:`check_opset`), ``out`` cannot be written, or
            the exporter fails.
    """
    import onnx
    import torch

    check_opset(opset)

    out = Path(out)
    obs_size, num_actions = sizes
    obs = torch.zeros(2, obs_size, dtype=torch.float32)
    mask = torch.ones(2, num_actions, dtype=torch.int8)  # the env's own mask dtype
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ExportError(f"cannot create the folder of {out}: {e.strerror or e}") from None
    dyn = {name: {0: "batch"} for name in (*INPUTS, OUTPUT)}
    with warnings.catch_warnings():
        # torch >= 2.9 defaults to the torch.export-based exporter, which needs onnxscript;
        # the TorchScript exporter handles this small MLP and warns that it is legacy
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", UserWarning)
        try:
            with torch.no_grad():
                torch.onnx.export(module, (obs, mask), str(out), input_names=list(INPUTS),
                                  output_names=[OUTPUT], dynamic_axes=dyn,
                                  opset_version=opset, dynamo=False)
        except OSError as e:
            raise ExportError(f"cannot write {out}: {e.strerror or e}") from None
        except (RuntimeError, torch.onnx.OnnxExporterError) as e:
            raise ExportError(f"the ONNX export failed at opset {opset}: {e}") from None
    proto = onnx.load(str(out))
    meta = {"obs_size": str(obs_size), "num_actions": str(num_actions),
            "variant": KNOWN_SIZES[(obs_size, num_actions)],
            "canasta_env_version": __version__,
            "inputs": "observation float32 [N, obs_size]; action_mask int8 [N, num_actions] "
                      "(1 legal, 0 illegal: the env's obs['action_mask'] as it is)",
            "output": "logits float32 [N, num_actions]: masked log-probabilities, illegal "
                      "about -1e8", **meta}
    for k, v in meta.items():
        entry = proto.metadata_props.add()
        entry.key, entry.value = k, v
    onnx.checker.check_model(proto)
    onnx.save(proto, str(out))
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m training.export_onnx``; ``argv`` defaults to ``sys.argv[1:]``.
    Returns the exit code (see the module docstring).

    Raises:
        SystemExit: ``--help`` (0) or a bad option (2, one line on stderr).
    """
    require_extra("python -m training.export_onnx", "training", "bots",
                  modules=("torch", "sb3_contrib", "onnx", "onnxruntime"))
    p = ArgumentParser(prog="python -m training.export_onnx",
                       description="Export a MaskablePPO checkpoint's policy to ONNX.")
    p.add_argument("checkpoint", help="MaskablePPO .zip")
    p.add_argument("out", help="output .onnx file")
    p.add_argument("--opset", type=int, default=17,
                   help=f"ONNX opset, {MIN_OPSET} to the newest torch exports (default 17)")
    args = p.parse_args(argv)
    # refused before torch is imported (export_onnx checks them again, and the top opset)
    checkpoint = Path(args.checkpoint)
    if not checkpoint.is_file():
        what = "is a directory, not a .zip file" if checkpoint.is_dir() else "does not exist"
        return fail(p.prog, f"checkpoint {checkpoint} {what}")
    if Path(args.out).is_dir():
        return fail(p.prog, f"output {args.out} is a directory; name the .onnx file to write")
    if args.opset < MIN_OPSET:
        return fail(p.prog, f"opset must be an int from {MIN_OPSET} to the newest this torch "
                            f"exports, got {args.opset}")
    from training.sb3.checkpoint import CheckpointError

    try:
        out = export_onnx(args.checkpoint, args.out, args.opset)
    except (CheckpointError, ExportError) as e:
        return fail(p.prog, e)
    except KeyboardInterrupt:
        return interrupted(p.prog)
    # self-check: the exported model agrees with torch on random masked inputs
    from training.sb3.checkpoint import CheckpointPolicy

    torch_policy = CheckpointPolicy(args.checkpoint)
    onnx_policy = OnnxPolicy(out)
    rng = np.random.default_rng(0)
    n_obs, n_act = onnx_policy.obs_size, onnx_policy.num_actions
    obs = rng.random((64, n_obs), dtype=np.float32)
    mask = (rng.random((64, n_act)) < 0.2).astype(np.int8)
    mask[:, 0] = 1
    got = onnx_policy.logits(obs, mask).argmax(axis=1)
    want = np.array([torch_policy.logits(o, m).argmax() for o, m in zip(obs, mask)])
    agree = int((got == want).sum())
    print(f"wrote {out} ({out.stat().st_size:,} bytes; {VARIANT_NAMES[onnx_policy.variant]}: "
          f"inputs observation [N, {n_obs}], action_mask [N, {n_act}]; output logits "
          f"[N, {n_act}]); argmax agrees with torch on {agree}/64 random masked inputs")
    return 0 if agree == 64 else 1


if __name__ == "__main__":
    raise SystemExit(main())
