"""``python -m goatarena``: the same as the ``goatarena`` command."""

from goatarena.cli import main

main()
