"""The bundled random bot; its code is goatarena/bots/random_bot.py.

A bot command can name it from any folder as ``builtin:random``; this script runs the same
bot for commands that name the file (``python3 bots/python/random_bot.py [--seed N]``).
"""

from goatarena.bots.random_bot import RandomBot, main

__all__ = ["RandomBot", "main"]

if __name__ == "__main__":
    main()
