"""``rummy convert-policy FILE``: rewrite a trusted policy file or checkpoint of an older
format as plain data, the only form rummy-env reads (``rummy_env.train.convert``)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    cv = sub.add_parser("convert-policy", help="rewrite a policy file or training checkpoint of an older format "
                        "(NumPy values, paths, a 0.2 Gin checkpoint's pickled games) as plain data, running nothing "
                        "the file names, e.g. rummy convert-policy runs/X/checkpoint.pt")
    cv.add_argument("file", help="the .pt file (any other object in it is refused by name, never run)")
    cv.add_argument("--out", help="where to write the converted file (default: in place, the original kept as "
                    "FILE.pickled)")
    cv.set_defaults(func=_convert)


def _convert(args: argparse.Namespace) -> int:
    try:
        from rummy_env.train.convert import convert
    except ImportError as exc:
        raise ImportError(f"rummy convert-policy needs torch ({exc}): pip install 'rummy-env[train]'") from None
    written = convert(args.file, args.out)
    kept = "" if args.out else f" (the original is kept as {args.file}.pickled)"
    print(f"converted: {written} now holds tensors and plain data only{kept}")
    return 0
