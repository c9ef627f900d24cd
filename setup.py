"""Build of the Cython core and the games' compiled paths (everything else is declared in pyproject.toml)."""

import platform

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
    # Order Poker's compiled paths (games/order_poker/fast/): each module cimports the rules kernel
    # kernel.pxd (inline C), so the kernel is compiled into each of them.
    *(Extension(
        f"games.order_poker.fast.{name}",
        [f"games/order_poker/fast/{name}.pyx"],
        include_dirs=[np.get_include()],
        extra_compile_args=["-O3"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    ) for name in ("_playout", "_rules", "_plans")),
    Extension(
        "games.dice_poker.fast._turn",  # the exact turn solution behind rasklad solve dice-poker
        ["games/dice_poker/fast/_turn.pyx"],
        include_dirs=[np.get_include()],
        extra_compile_args=["-O3"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    ),
    Extension(
        "games.liars_poker.fast._cfr",  # CFR+ and exact best responses of liar's poker's small games
        ["games/liars_poker/fast/_cfr.pyx"],
        include_dirs=[np.get_include()],
        extra_compile_args=["-O3"] + (["-mpopcnt"] if platform.machine() in ("x86_64", "AMD64") else []),
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    ),
]

setup(ext_modules=cythonize(extensions, compiler_directives={"language_level": "3"}))
