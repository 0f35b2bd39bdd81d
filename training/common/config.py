"""What every training config shares: the section base (numbers are numbers, unknown keys
are errors), run names, the YAML reader with one clear :class:`ConfigError`, and the PPO
settings both trainers read (:class:`PPOSettings`: :class:`training.sb3.config.PPOConfig`
for sb3-contrib's MaskablePPO, :class:`training.rllib.config.RLlibPPOConfig` for RLlib).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal, get_args, get_origin

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

#: the card-class extractor's hidden layers unless ``ppo.class_layers`` says otherwise (also
#: :class:`training.sb3.features.CardClassFeatures`' default; here, with no dependencies,
#: so that both can import it)
CLASS_LAYERS = 2

RUN_NAME_MAX = 100  # the TensorBoard folder adds a suffix; file systems allow 255 bytes
_RUN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


def _check_run_name(name: str) -> str:
    if not _RUN_NAME.fullmatch(name) or len(name) > RUN_NAME_MAX:
        raise ValueError(f"{name!r} cannot name the run's folders: use letters, digits, _ . "
                         f"and - only, starting with a letter, digit or _, at most "
                         f"{RUN_NAME_MAX} characters")
    return name


#: A run's name: the folder checkpoints/<name>/ and runs/<name>/ (never a path).
RunName = Annotated[str, AfterValidator(_check_run_name)]


_YAML_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)[eE][-+]?\d+")


class _Config(BaseModel):
    """A config section: numbers are numbers. YAML's true / false are refused where a
    number is expected (pydantic would read them as 1 / 0), and an integral number
    written like ``1e7`` or ``3e-4`` (which YAML 1.1 reads as text) is read as that number;
    any other text where a number is expected (a quoted ``'0.5'``) is refused. Unknown keys,
    NaN and infinities are errors."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _numbers(cls, data):
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for name, field in cls.model_fields.items():
            key = field.alias if field.alias in data else name
            if key not in data:
                continue
            kinds = set(get_args(field.annotation)) | {field.annotation}
            value = data[key]
            if (int in kinds or float in kinds) and bool not in kinds and \
                    isinstance(value, bool):
                raise ValueError(f"@{name}: expected a number, not true or false")  # @: the
                # field, joined to the error's location by load_yaml_model
            texts = {t for k in kinds if get_origin(k) is Literal for t in get_args(k)}
            if (int in kinds or float in kinds) and str not in kinds and \
                    isinstance(value, str) and value not in texts:
                if not _YAML_NUMBER.fullmatch(value.strip()):
                    raise ValueError(f"@{name}: expected a number, not the text {value!r} "
                                     "(write it without quotes)")
                number = float(value)
                if float in kinds:
                    data[key] = number
                elif number.is_integer() and abs(number) < 2 ** 63:
                    data[key] = int(number)
        return data


class ConfigError(ValueError):
    """A config file is missing, not YAML, or has bad values; the message says which."""


class PPOSettings(_Config):
    """The PPO hyperparameters both trainers share (sb3-contrib's names). Each trainer's
    section adds its own: the rollout and minibatch sizes (SB3 ``n_steps`` /
    ``batch_size``; RLlib ``train_batch_size`` / ``minibatch_size``) and what only one of
    them has."""

    learning_rate: float = Field(3e-4, gt=0, description="Adam learning rate")
    n_epochs: int = Field(5, ge=1, description="optimisation epochs per rollout")
    gamma: float = Field(0.995, gt=0, le=1, description="discount")
    gae_lambda: float = Field(0.95, gt=0, le=1)
    clip_range: float = Field(0.2, gt=0)
    ent_coef: float = Field(0.01, ge=0)
    vf_coef: float = Field(0.5, ge=0)
    max_grad_norm: float = Field(0.5, gt=0)
    net_arch: list[int] = Field([256, 256], description="hidden layer sizes (policy and value; "
                                "MaskablePPO's ppo.vf_arch may size the value network apart)")


def load_yaml_model(path: str | Path, model: type[BaseModel], **overrides) -> BaseModel:
    """Read the YAML file ``path`` and validate it as ``model`` (overrides that are not
    ``None`` replace its top-level keys).

    Raises:
        ConfigError: file missing, not YAML, or values invalid (message lists each).
    """
    path = Path(path)
    if not path.is_file():
        what = "is a directory, not a file" if path.is_dir() else "does not exist"
        raise ConfigError(f"config file {path} {what}")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path} is not UTF-8 text: {e}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{path} is not valid YAML: {e}") from None
    except ValueError as e:  # e.g. an integer of more digits than Python converts
        raise ConfigError(f"{path} holds a value this reader refuses: {e}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a mapping of options, got {type(data).__name__}")
    given = {k: v for k, v in overrides.items() if v is not None}
    data.update(given)
    try:
        return model(**data)
    except ValidationError as e:
        lines = []
        for err in e.errors():
            msg = err["msg"].removeprefix("Value error, ")
            if msg.startswith("@"):  # a field named by a section's own check (_Config)
                field, msg = msg[1:].split(": ", 1)
                err = {**err, "loc": (*err["loc"], field), "input": None}
            if not err["loc"]:  # a check across fields: name the command line's part in it
                told = [f"{k}={v!r}" for k, v in given.items() if k in msg]
                lines.append(f"  {msg}" + (f" ({', '.join(told)} given on the command line)"
                                           if told else ""))
            else:
                value = err["input"]
                shown = _short(value) if isinstance(value, (str, int, float, bool)) else ""
                told = err["loc"][0] in given
                said = isinstance(value, str) and repr(value)[:60] in msg  # named already
                where = " on the command line" if told else ""
                got = f" (got {shown}{where})" if shown and not said else \
                    f" (given{where})" if told else ""
                lines.append(f"  {'.'.join(map(str, err['loc']))}: {_clip(msg)}{got}")
        raise ConfigError(f"invalid config {path}:\n" + "\n".join(lines)) from None


def _short(value, limit: int = 80) -> str:
    """``repr(value)``, cut to ``limit`` characters (a huge value stays readable)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit - 1]}… ({len(text):,} characters)"


def _clip(msg: str, limit: int = 300) -> str:
    return msg if len(msg) <= limit else f"{msg[:limit - 1]}…"


def dump_config(cfg: BaseModel, path: str | Path) -> None:
    """Write the resolved config as YAML."""
    Path(path).write_text(yaml.safe_dump(cfg.model_dump(by_alias=True), sort_keys=False))
