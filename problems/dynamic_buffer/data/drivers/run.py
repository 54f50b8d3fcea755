"""scbench's Python driver: uses the generated package dynamic_py_buffer on a data file and prints each row
as one JSON line, numbers written as text rounded to 6 decimal places (a whole number without decimals)."""

import argparse
import json

from dynamic_py_buffer import DynamicPreprocessor


def shown(value):
    if isinstance(value, float):
        rounded = round(value, 6)
        return str(int(rounded)) if rounded == int(rounded) else repr(rounded)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


parser = argparse.ArgumentParser()
parser.add_argument("data_file")
parser.add_argument("--buffer", type=int, default=1024)
parser.add_argument("--cache_dir", default=None)
parser.add_argument("--stop_after", type=int, default=None)
args = parser.parse_args()

preprocessor = DynamicPreprocessor(buffer=args.buffer, cache_dir=args.cache_dir)
for number, row in enumerate(preprocessor(args.data_file), 1):
    print(json.dumps({key: shown(value) for key, value in row.items()}, ensure_ascii=False))
    if args.stop_after is not None and number >= args.stop_after:
        break
