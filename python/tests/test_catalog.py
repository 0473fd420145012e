"""Every catalog spelling through the package's array path (NumPy dtypes, broadcasting,
`out=`, the SIMD kernels) against the instruction's scalar definition evaluated one element at
a time on Python ints (`Instr.eval_bits`, no NumPy on the way), on edge operands: raw words,
every other accepted dtype, broadcast scalars and `out=`.
"""

import numpy as np
import pytest

import ptxfp
from narrow_forms import WORDS, ml_form, ml_to_words, words_to_ml


def float_edges(bits, exp_bits):
    """Edge encodings of a binary format: zeros, subnormals, normals at the ends and around 1,
    the largest finite, infinities and NaNs (quiet, signalling, with payloads), both signs."""
    frac = bits - 1 - exp_bits
    exp_mask = ((1 << exp_bits) - 1) << frac
    one = ((1 << (exp_bits - 1)) - 1) << frac
    sign = 1 << (bits - 1)
    positive = [
        0,
        1,
        2,
        (1 << frac) - 1,  # largest subnormal
        1 << frac,  # smallest normal
        (1 << frac) + 1,
        one - 1,
        one,
        one + 1,
        one | (1 << (frac - 1)),  # 1.5
        one + (1 << frac),  # 2
        one - (1 << frac) | (1 << (frac - 1)),  # 0.75
        exp_mask - 1,  # largest finite
        exp_mask - (1 << frac),
        exp_mask,  # infinity
        exp_mask | 1,  # signalling NaN
        exp_mask | (1 << (frac - 1)),  # quiet NaN
        exp_mask | (1 << frac) - 1,
    ]
    return positive + [p | sign for p in positive]


def int_edges(bits):
    top = (1 << bits) - 1
    values = [0, 1, 2, 3, 100, top >> 1, (top >> 1) + 1, top, top - 1, 1 << (bits // 2), (1 << (bits // 2)) - 1]
    return sorted(set(v & top for v in values))


#: The narrow pairs (packed words of two 8-bit codes, e2m1x2 of two nibbles).
NARROW = {"e4m3x2", "e5m2x2", "e2m3x2", "e3m2x2", "ue8m0x2", "ue5m3x2", "s2f6x2", "e2m1x2"}


def edges(source_type):
    if source_type == "e2m1x2":
        return list(range(0, 256, 3))
    if source_type in NARROW:
        # Codes across the low element against a few in the high one (every code of every
        # narrow format goes through the scalar definition in tests/nvidia_host_code.rs).
        return [a | b << 8 for a in range(0, 256, 7) for b in (0x00, 0x7F, 0x80, 0xFF)]
    if source_type.endswith("x2"):
        scalar = source_type[:-2]
        lanes = edges(scalar)
        half = {"f16": 16, "bf16": 16, "f32": 32}[scalar]
        rng = np.random.default_rng(7)
        pairs = [(a, b) for a in lanes for b in lanes[:: max(1, len(lanes) // 6)]]
        words = [a | b << half for a, b in pairs]
        words += [int(x) for x in rng.integers(0, 1 << (2 * half), 16, dtype=np.uint64)]
        return words
    if source_type == "f16":
        return float_edges(16, 5)
    if source_type == "bf16":
        return float_edges(16, 8)
    if source_type == "f32":
        return float_edges(32, 8)
    if source_type == "f64":
        return float_edges(64, 11)
    return int_edges(int(source_type[1:]))


def operand_words(source_type, bits, count):
    """`count` operand arrays: every combination of edges for one or two operands (a sample
    for three), plus random words."""
    e = np.array(edges(source_type), dtype=np.uint64)
    rng = np.random.default_rng(bits * 10 + count)
    if count == 1:
        grid = [e]
    elif count == 2:
        a, b = np.meshgrid(e, e, indexing="ij")
        grid = [a.ravel(), b.ravel()]
    else:
        n = 4096
        grid = [rng.choice(e, n) for _ in range(count)]
    extra = 512
    top = np.uint64((1 << bits) - 1)
    grid = [np.concatenate([g, rng.integers(0, 1 << 63, extra, dtype=np.uint64) & top]) for g in grid]
    return [g.astype(WORDS[bits]) for g in grid]


def scalar(instr, sources):
    """The scalar definition on every element, as words."""
    columns = [s.tolist() for s in sources]
    return np.array([instr.eval_bits(*ops) for ops in zip(*columns)], dtype=np.uint64)


def pairs():
    """(spelling, operand count, architecture): every catalog entry on an architecture that
    has it (sm_90 where it does; RRO only exists up to sm_62, f32x2 from sm_100)."""
    seen = []
    for entry in ptxfp.ops():
        if entry["spelling"].startswith("RRO"):
            arch = "sm_52"
        elif entry["targets"].endswith("+") and entry["min_sm"] <= 90:
            arch = "sm_90"
        else:
            arch = entry["lowest_target"]
        seen.append((entry["spelling"], entry["operands"], arch))
    return seen


PAIRS = pairs()


def test_every_catalog_entry_is_checked():
    # Every family of PTX ISA 9.7.3/9.7.4, cvt and the SASS MUFU/RRO forms.
    families = {s.split(".")[0] for s, _, _ in PAIRS}
    assert families == {"MUFU", "RRO", "abs", "add", "copysign", "cos", "cvt", "div", "ex2", "fma", "lg2", "mad",
                        "max", "min", "mul", "neg", "rcp", "rsqrt", "sin", "sqrt", "sub", "tanh", "testp"}
    assert len(PAIRS) == len(ptxfp.ops())


@pytest.mark.parametrize("block", range(8))
def test_every_spelling_matches_its_scalar_definition_through_every_dtype_path(block):
    mismatches = []
    for spelling, count, arch in PAIRS[block::8]:
        instr = ptxfp.Instr(spelling, arch=arch)
        # The widest operand's words (a scale operand may be wider than an e2m1x2 source).
        word_in = np.dtype(WORDS[instr._native.source_bits])
        assert source_bits(instr.source_type) <= word_in.itemsize * 8, spelling
        word_out = np.dtype(WORDS[instr._native.result_bits])
        lanes = instr.result_lanes
        # Each operand within the bits of its type (a narrower scale or rbits operand, FP6
        # bytes without their padding bits).
        srcs = [s & np.array(mask, dtype=s.dtype) for s, mask in
                zip(operand_words(instr.source_type, word_in.itemsize * 8, count), instr._native.operand_bits)]
        want = scalar(instr, srcs).astype(word_out)

        def as_words(result):
            return result.view(word_out) if lanes is None else ml_to_words(result, instr.result_type, word_out.itemsize * 8)

        # Raw words in, natural dtype out.
        got = instr.eval(*srcs)
        assert got.dtype == instr.result_dtype, spelling
        assert got.shape == (len(want),) + ((lanes,) if lanes else ()), spelling
        check(mismatches, spelling, "words", as_words(got), want)

        # Every other accepted dtype (values of the format, signed integers, bfloat16, the
        # ml_dtypes forms of the narrow types, an operand narrower than the source words at
        # its own width): the j-th of each operand's in the j-th evaluation.
        others = [[d for d in instr.operand_dtypes(k) if d != word_in] for k in range(count)]
        for j in range(max(map(len, others))):
            ops = [as_dtype(s, alt[j], instr.source_types[k]) if j < len(alt) else s
                   for k, (s, alt) in enumerate(zip(srcs, others))]
            names = ",".join(str(o.dtype) for o in ops)
            check(mismatches, spelling, f"{names} operands", as_words(instr.eval(*ops)), want)

        # out= in words and in the natural dtype.
        out = np.empty(len(want), dtype=word_out)
        assert instr.eval(*srcs, out=out) is out
        check(mismatches, spelling, "out= words", out, want)
        out = np.empty((len(want),) + ((lanes,) if lanes else ()), dtype=instr.result_dtype)
        instr.eval(*srcs, out=out)
        check(mismatches, spelling, "out= natural", as_words(out), want)

        # Operand 1 a broadcast scalar, the others two-dimensional.
        if count > 1:
            first = srcs[0][:1].reshape(())
            rest = [s[:64].reshape(8, 8) for s in srcs[1:]]
            got = instr.eval(first, *rest, out=np.empty((8, 8), word_out))
            wanted = scalar(instr, [np.full(64, first, dtype=word_in)] + [r.ravel() for r in rest]).astype(word_out)
            check(mismatches, spelling, "broadcast", got.reshape(-1), wanted)
    assert not mismatches, "\n".join(mismatches[:20])


def as_dtype(words, dtype, ptx):
    """Source words as an array of `dtype`: an ml_dtypes form of a packed narrow type, the
    words or values of the operand's own width, or a dtype of the source width."""
    form = ml_form(ptx)
    if form and dtype == form[0]:
        return words_to_ml(words, ptx)
    return words.astype(WORDS[dtype.itemsize * 8]).view(dtype)


def source_bits(source_type):
    """Width of an operand word of a PTX type."""
    floats = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "f16x2": 32, "bf16x2": 32, "f32x2": 64, "e2m1x2": 8}
    if source_type in floats:
        return floats[source_type]
    if source_type.endswith("x2"):  # the 8-bit narrow formats, two to a word
        return 16
    return int(source_type[1:])


def check(mismatches, spelling, path, got, want):
    if not np.array_equal(got, want):
        bad = np.flatnonzero(got != want)
        k = bad[0]
        mismatches.append(f"{spelling} ({path}): {len(bad)} differ, first at {k}: {got[k]:#x} against the scalar definition's {want[k]:#x}")
