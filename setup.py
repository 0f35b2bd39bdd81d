"""Build of the optional native core (canasta_env/native): a Cython binding over plain C.

``pip install -e .`` compiles it with the machine's C compiler; the extension is
``optional``: without a compiler (or Cython) the package still installs and
``canasta_env.native`` falls back to the Python engine with one warning.
"""

import glob
import os

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
CORE = sorted(glob.glob(os.path.join("canasta_env", "native", "core", "*.c")))
SANITIZE = os.environ.get("CANASTA_NATIVE_SANITIZE") == "1"


def extensions():
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("canasta_env: Cython is not installed; the native core is not built")
        return []
    from setuptools import Extension

    # no fused multiply-add: the heuristic's estimates are the Python's doubles, bit for bit
    cflags = ["-O3", "-Wall", "-Wextra", "-ffp-contract=off"]
    ldflags = []
    if SANITIZE:
        # every UBSan finding is fatal (no recovery), so a run with one cannot pass
        cflags = ["-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                  "-fno-omit-frame-pointer", "-Wall", "-Wextra", "-ffp-contract=off"]
        ldflags = ["-fsanitize=address,undefined"]
    ext = Extension(
        "canasta_env.native._core",
        sources=[os.path.join("canasta_env", "native", "_core.pyx"), *CORE],
        include_dirs=[os.path.join("canasta_env", "native")],
        extra_compile_args=cflags,
        extra_link_args=ldflags,
        optional=True,
    )
    return cythonize([ext], language_level=3, quiet=True)


class OptionalBuildExt(build_ext):
    """Build extensions, but never fail the install because of them."""

    def run(self):
        try:
            super().run()
        except Exception as e:  # noqa: BLE001 - no compiler: the Python engine is used
            print(f"canasta_env: the native core was not built ({e}); using the Python engine")


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
