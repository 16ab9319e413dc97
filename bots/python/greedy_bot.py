"""The bundled greedy bot; its code is goatarena/bots/greedy_bot.py.

A bot command can name it from any folder as ``builtin:greedy``; this script runs the same
bot for commands that name the file (``python3 bots/python/greedy_bot.py [--seed N]``).
"""

from goatarena.bots.greedy_bot import GreedyBot, main

__all__ = ["GreedyBot", "main"]

if __name__ == "__main__":
    main()
