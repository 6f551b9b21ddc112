"""``build cobe --construct CORE --model M --base-url URL``: the flags of a construction and the run they ask for.

The ``build`` command adds these flags (:func:`add_arguments`) and, given ``--construct``, runs the
construction (:func:`construct_from_args`) and builds the dataset from its folder like any other
source. The generator is the ``--model`` role, the judge the ``--judge-model`` one (the generator when
it is not given); the sampling seed of both is ``build``'s ``--seed`` when given.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from causal_datasets.cobe.construct import construct
from causal_datasets.cobe.records import VARIATION_KINDS
from causal_datasets.errors import RunConfigurationError
from causal_datasets.flags import dest, flag, given_values
from causal_datasets.llm.config import LLMConfig
from causal_datasets.llm.options import add_model_arguments, spec_from_args

#: where a construction is kept unless ``--construct-out`` says otherwise
DEFAULT_OUT = Path("cobe-construction")
#: LLMConfig fields that are no flag here: ``build``'s own ``--seed`` sets the seed
OWN_FLAGS = ("seed",)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--construct`` and its flags, the generator's ``--model ...`` and the judge's ``--judge-model ...``."""
    group = parser.add_argument_group(
        "cobe construction", "build cobe --construct CORE: a core set expanded by a model's variations (paper §3.1)"
    )
    group.add_argument(
        "--construct", type=Path, metavar="CORE",
        help="a CoBe file of core scenarios (paper or website format): ask --model for variations of each, check "
        "them, and build the core set with the variations kept",
    )  # fmt: skip
    group.add_argument(
        "--construct-out", type=Path, default=DEFAULT_OUT, metavar="DIR",
        help="folder of the construction: every variation's line, kept or not; run again to resume "
        f"(default {DEFAULT_OUT})",
    )  # fmt: skip
    group.add_argument(
        "--variations-per-kind", type=int, default=3, metavar="N",
        help="variations asked per core scenario and kind (default 3)",
    )  # fmt: skip
    group.add_argument(
        "--kinds", nargs="+", choices=VARIATION_KINDS, default=list(VARIATION_KINDS),
        help="kinds of variation (default all three)",
    )  # fmt: skip
    add_model_arguments(
        parser, purpose="with --construct: the generator of the variations", omitted="no construction",
        exclude=OWN_FLAGS,
    )  # fmt: skip
    add_model_arguments(
        parser, "judge-", purpose="with --construct: the judge of each variation's representative answer",
        omitted="the generator judges", exclude=OWN_FLAGS,
    )  # fmt: skip


def run_construction(args: argparse.Namespace) -> None:
    """With ``--construct``: run the construction the flags ask for and make its folder ``args.source``. Without
    it, a model flag given is an error (it would be ignored)."""
    if args.construct is not None:
        args.source = construct_from_args(args)
        return
    for prefix in ("", "judge-"):
        given = given_values(LLMConfig, args, prefix=prefix, exclude=OWN_FLAGS)
        if given or getattr(args, dest("model_config", prefix)) is not None:
            name = flag(next(iter(given), "model_config"), prefix)
            raise RunConfigurationError(f"{name} is for `build cobe --construct CORE` alone")


def construct_from_args(args: argparse.Namespace) -> Path:
    """Run the construction the flags ask for; the folder to build from."""
    if args.all or args.name != "cobe" or args.source is not None:
        raise RunConfigurationError("--construct builds cobe alone: `build cobe --construct CORE` (no --source)")
    if not args.construct.is_file():
        raise RunConfigurationError(f"--construct {args.construct} is not a file")
    if args.variations_per_kind < 1:
        raise RunConfigurationError("--variations-per-kind must be at least 1")
    flags = argparse.Namespace(**vars(args))
    if args.seed is not None:
        flags.judge_seed = args.seed
    else:
        del flags.seed
    generator = spec_from_args(flags)
    if generator is None:
        raise RunConfigurationError("--construct needs a generator: --model M (and --base-url URL)")
    judge = spec_from_args(flags, "judge-") or generator
    with generator.client() as generator_client, judge.client() as judge_client:
        counts = construct(
            args.construct, args.construct_out, generator_client, judge_client,
            kinds=list(dict.fromkeys(args.kinds)), per_kind=args.variations_per_kind,
            concurrency=generator.config.concurrency,
        )  # fmt: skip
    again = " (asked again when the same command runs again)" if counts["failed"] else ""
    print(
        f"construction {args.construct_out}: {counts['accepted']} variations accepted, {counts['rejected']} "
        f"rejected, {counts['failed']} failed{again}"
    )
    return Path(args.construct_out)
