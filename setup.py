"""Build of the Cython core and the games' compiled paths (everything else is declared in pyproject.toml)."""

import platform
from pathlib import Path

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension(
        "ext._handeval",
        ["ext/_handeval.pyx"],
        include_dirs=[np.get_include()],
        # popcnt exists on every x86-64 CPU since about 2008; without the flag gcc calls a
        # library routine for __builtin_popcountll on every hand (~1.45x slower).
        extra_compile_args=["-O3"] + (["-mpopcnt"] if platform.machine() in ("x86_64", "AMD64") else []),
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    ),
    # openskill's PlackettLuce arithmetic for the report's rating (sims.stats.rating): no -O3, no
    # flags that could reorder or fuse floating-point operations (the ratings must be openskill's floats).
    Extension("ext._rating", ["ext/_rating.pyx"], include_dirs=[np.get_include()],
              define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]),
    # Every game's compiled paths: each games/<game>/fast/<name>.pyx is one extension module, so a new
    # game adds its kernels without editing this file (a module may cimport a .pxd beside it, as
    # Order Poker's kernel.pxd, which is then compiled into each module that uses it).
    *(Extension(
        f"games.{pyx.parent.parent.name}.fast.{pyx.stem}",
        [str(pyx)],
        include_dirs=[np.get_include()],
        # popcnt: see ext._handeval above (the liar's poker CFR counts bits on every bid). No fused
        # multiply-adds: kernels must give the readable engine's floats exactly (the luck corrections,
        # Order Poker's play-out scores); gcc fuses a*b+c by default where the CPU has FMA (aarch64,
        # x86-64 built with -march=native), which rounds once instead of twice.
        extra_compile_args=["-O3", "-ffp-contract=off"]
        + (["-mpopcnt"] if platform.machine() in ("x86_64", "AMD64") else []),
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    ) for pyx in sorted(Path("games").glob("*/fast/*.pyx"))),
]

setup(ext_modules=cythonize(extensions, compiler_directives={"language_level": "3"}))
