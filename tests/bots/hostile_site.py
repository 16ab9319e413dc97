"""A bot that attacks the site: its every answer is an action made of markup, so that the
referee's violation detail, which quotes what the bot sent, carries a script into the
pages, the JSON embedded in them and the event stream; it greets with a name of markup
and a line separator (U+2028) too. The site must show all of it as text."""

import json
import sys

PAYLOAD = '</script><script>alert("site")</script><img src=x onerror=alert(1)>\u2028'


def main() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if message["type"] == "hello":
            answer = {"type": "hello", "name": PAYLOAD}
        elif message["type"] == "decide":
            answer = {"type": "action", "action": PAYLOAD}
        elif message["type"] == "quit":
            break
        else:
            continue
        out.write(json.dumps(answer, ensure_ascii=False).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
