"""``python -m tailor.cli``: the ``tailor`` command."""

from tailor.cli import main

main()
