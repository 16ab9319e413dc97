"""``python -m goatarena``: the same as the ``goatarena`` command."""

from goatarena.entry import main

main()
