"""``python -m rasklad`` is the ``rasklad`` command."""

from rasklad.cli import main

main()
