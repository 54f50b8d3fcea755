# TODO: split the request handling into its own module
import json
import os
from functools import lru_cache

from server.util.text import slugify


def route(path):
    def wrap(handler):
        handler.route = path
        return handler
    return wrap


@lru_cache(maxsize=32)
def load_config(path):
    with open(path) as handle:
        return json.load(handle)


@route("/health")
def health():
    return {"status": "ok"}


@route("/echo")
def echo(body):
    print("echo:", body)
    return body


def main():
    config = load_config(os.environ.get("CONFIG", "config.json"))
    print(config)
    print(slugify(config.get("title", "Hello World")))
    # FIXME: port should come from the config
    return 8080


if __name__ == "__main__":
    main()
