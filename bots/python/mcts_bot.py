"""The bundled mcts bot; its code is goatarena/bots/mcts_bot.py.

A bot command can name it from any folder as ``builtin:mcts``; this script runs the same
bot for commands that name the file (``python3 bots/python/mcts_bot.py [--seed N]``).
"""

from goatarena.bots.mcts_bot import MctsBot, main

__all__ = ["MctsBot", "main"]

if __name__ == "__main__":
    main()
