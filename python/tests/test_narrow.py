"""The low-precision cvt formats as ml_dtypes arrays: the ml_dtypes path against the word path
bit for bit on every spelling that has one, the errors, and every input on which ml_dtypes'
own conversions (`astype`) differ from the instruction of the same format, each with its
reason (docs/semantics.md §8.4–§8.5)."""

import collections

import ml_dtypes
import numpy as np
import pytest

import ptxfp
from narrow_forms import ML, WORDS, ml_form, ml_to_words, words_to_ml

BF16 = np.dtype(ml_dtypes.bfloat16)


def spellings_with_ml_sides():
    """(spelling, operand count, arch) of every catalog cvt with a packed narrow source or
    result that ml_dtypes has (on its lowest target), and of every tf32 result."""
    seen = []
    for e in ptxfp.ops():
        if not e["spelling"].startswith("cvt"):
            continue
        if ml_form(e["source_type"]) or ml_form(e["result_type"]) or e["result_type"] == "tf32" or "scaled" in e["spelling"]:
            seen.append((e["spelling"], e["operands"], e["lowest_target"]))
    return seen


SPELLINGS = spellings_with_ml_sides()


def random_operands(instr, count, n, seed):
    """Random words for each operand, within its bits (FP6 bytes without padding bits 7:6)."""
    rng = np.random.default_rng(seed)
    word = WORDS[instr._native.source_bits]
    masks = instr._native.operand_bits
    return [(rng.integers(0, 1 << 63, n, dtype=np.uint64) & np.uint64(masks[k])).astype(word) for k in range(count)]


def test_the_ml_sides_are_found():
    names = {s for s, _, _ in SPELLINGS}
    assert {"cvt.rn.satfinite.e4m3x2.f32", "cvt.rn.f16x2.e2m1x2", "cvt.rz.satfinite.ue8m0x2.f32",
            "cvt.rna.tf32.f32", "cvt.rs.satfinite.e2m1x4.f32"} <= names
    assert len(SPELLINGS) > 100


@pytest.mark.parametrize("block", range(4))
def test_ml_dtypes_arrays_give_the_bits_of_words(block):
    n = 1500
    for spelling, count, arch in SPELLINGS[block::4]:
        instr = ptxfp.Instr(spelling, arch=arch)
        words = random_operands(instr, count, n, hash(spelling) & 0xFFFF)
        want = instr.eval(*words, out=np.empty(n, WORDS[instr._native.result_bits]))
        # Every operand with an ml_dtypes form in that form, the others as words.
        forms = [ml_form(t) for t in instr.source_types[:count]]
        mixed = [words_to_ml(w, t) if f else w for w, t, f in zip(words, instr.source_types, forms)]
        got = instr.eval(*mixed)
        assert got.dtype == instr.result_dtype, spelling
        out = ml_form(instr.result_type)
        if out:
            assert got.shape == (n, out[1]) and instr.result_lanes == out[1], spelling
            assert np.array_equal(ml_to_words(got, instr.result_type, instr._native.result_bits), want), spelling
            # out= in either form.
            filled = np.empty((n, out[1]), out[0])
            assert instr.eval(*mixed, out=filled) is filled
            assert np.array_equal(filled.view(np.uint8), got.view(np.uint8)), spelling
            assert np.array_equal(instr.eval(*mixed, out=np.empty(n, want.dtype)), want), spelling
        else:
            assert got.shape == (n,) and instr.result_lanes is None, spelling
            assert np.array_equal(got.view(want.dtype), want), spelling
        if instr.result_type == "tf32":
            assert instr.result_dtype == np.float32
        if any(forms):
            assert forms[0] is None or instr.source_dtypes[0] == forms[0][0] and instr.source_lanes == forms[0][1]


def test_broadcasting_consumes_the_last_axis():
    e4m3 = ML["e4m3"]
    x = np.array([[1.0, 2.0], [-0.5, 448.0], [0.0, -3.0]], np.float32).astype(e4m3)  # (3, 2): three words
    got = ptxfp.eval("cvt.rn.f16x2.e4m3x2", x)
    assert got.dtype == np.uint32 and got.shape == (3,)
    halves = got.view(np.float16).reshape(3, 2)  # element 0 in the low half
    assert np.array_equal(halves, x.astype(np.float16))
    # A (2, 1, 2) e4m3x2 operand against a (4,) scale: shape (2, 4) of bf16x2 words.
    scales = np.full((4,), 0x7F7F, np.uint16)
    got = ptxfp.eval("cvt.rn.scaled::n2::ue8m0.bf16x2.e4m3x2", x[:2, None, :], scales, arch="sm_100a")
    assert got.shape == (2, 4)
    # The scales as float8_e8m0fnu pairs (1.0 = 0x7F), element 0 first.
    ones = np.ones((4, 2), ML["ue8m0"])
    assert np.array_equal(ptxfp.eval("cvt.rn.scaled::n2::ue8m0.bf16x2.e4m3x2", x[:2, None, :], ones, arch="sm_100a"), got)
    # e2m1x4 from four f32: a (5, 4) float4_e2m1fn result; the result of scalars is one word's elements.
    d = ptxfp.eval("cvt.rs.satfinite.e2m1x4.f32", 6.0, 1.0, 0.5, -2.0, np.zeros(5, np.uint32), arch="sm_100a")
    assert d.shape == (5, 4) and d.dtype == ML["e2m1"]
    one = ptxfp.eval("cvt.rn.satfinite.e2m1x2.f32", 3.0, -1.5, arch="sm_100a")
    assert one.shape == (2,) and one.astype(np.float32).tolist() == [-1.5, 3.0]


def test_nibbles_and_fp6_bytes_are_packed_as_ptx_places_them():
    # e2m1x2: element 0 in bits 3:0; float4_e2m1fn keeps each code in a byte's low nibble.
    pair = np.array([0.5, -6.0], np.float32).astype(ML["e2m1"])  # codes 0x1, 0xF
    assert pair.view(np.uint8).tolist() == [0x01, 0x0F]
    assert ptxfp.eval("cvt.rn.f16x2.e2m1x2", pair, arch="sm_100a") == ptxfp.eval("cvt.rn.f16x2.e2m1x2", np.uint8(0xF1), arch="sm_100a")
    # float6 bytes: the code in bits 5:0 (sign at bit 5), bits 7:6 clear, as PTX's bytes.
    six = np.array([1.0, -1.0, -7.5, 0.125], np.float32).astype(ML["e2m3"])
    assert six.view(np.uint8).tolist() == [0x08, 0x28, 0x3F, 0x01]


def test_fp6_padding_bits():
    instr = ptxfp.Instr("cvt.rn.f16x2.e2m3x2", arch="sm_100a")
    # Every float6 code ml_dtypes writes has bits 7:6 clear, so its arrays never set them.
    every = np.arange(64, dtype=np.uint8).view(ML["e2m3"]).astype(np.float32)
    assert np.all(every.astype(ML["e2m3"]).view(np.uint8) < 64)
    pairs = np.stack([np.arange(64, dtype=np.uint8), np.arange(64, dtype=np.uint8)[::-1]], -1)
    got = instr.eval(pairs.view(ML["e2m3"]))
    words = (pairs[:, 0].astype(np.uint16) | pairs[:, 1].astype(np.uint16) << 8)
    assert np.array_equal(got, instr.eval(words))
    # A word that sets a padding bit: the scalar definition refuses it; arrays read bits 5:0.
    with pytest.raises(ValueError, match="(?i)padding|bits 7:6|must be 0"):
        instr.eval_bits(0x0040)
    assert instr.eval(np.uint16(0xC0C1)) == instr.eval(np.uint16(0x0001))


E4M3, E5M2, E2M1, UE8M0 = ML["e4m3"], ML["e5m2"], ML["e2m1"], ML["ue8m0"]
SCALED = "cvt.rn.scaled::n2::ue8m0.bf16x2.e4m3x2"


@pytest.mark.parametrize(
    "call, error, words",
    [
        # A float8_e5m2 array for an e4m3x2 operand.
        (lambda: ptxfp.eval("cvt.rn.f16x2.e4m3x2", np.zeros((3, 2), E5M2)), TypeError, "float8_e4m3fn with a last axis of 2"),
        # The wrong last axis, and a 0-d array.
        (lambda: ptxfp.eval("cvt.rn.f16x2.e4m3x2", np.zeros((2, 3), E4M3)), TypeError, "last axis of 2"),
        (lambda: ptxfp.eval("cvt.rn.f16x2.e4m3x2", np.zeros((), E4M3)), TypeError, "last axis of 2"),
        (lambda: ptxfp.eval("cvt.rn.f16x2.e2m1x2", np.zeros(4, E2M1), arch="sm_100a"), TypeError, "float4_e2m1fn with a last axis of 2"),
        # Words of the wrong width, and big-endian words.
        (lambda: ptxfp.eval("cvt.rn.f16x2.e4m3x2", np.zeros(3, np.uint32)), TypeError, "or uint16"),
        (lambda: ptxfp.eval("cvt.rn.f16x2.e4m3x2", np.zeros(3, ">u2")), TypeError, "big-endian"),
        # float8_e4m3fn values for an f32 operand; an ml_dtypes array for the random bits.
        (lambda: ptxfp.eval("cvt.rn.satfinite.e4m3x2.f32", np.zeros(2, E4M3), 1.0), TypeError, "float32 or uint32"),
        (lambda: ptxfp.eval("cvt.rs.satfinite.e4m3x4.f32", 1.0, 1.0, 1.0, 1.0, np.zeros(2, E4M3), arch="sm_100a"), TypeError, "u32"),
        # The scales of a scaled form: float8_e8m0fnu pairs, not e4m3.
        (lambda: ptxfp.eval(SCALED, np.zeros(2, E4M3), np.zeros(2, E4M3), arch="sm_100a"), TypeError, "float8_e8m0fnu with a last axis of 2"),
        # out= of the wrong dtype or shape.
        (lambda: ptxfp.eval("cvt.rn.satfinite.e4m3x2.f32", np.ones(3, np.float32), 1.0, out=np.empty((3, 2), E5M2)), TypeError,
         "float8_e4m3fn with a last axis of 2 (element 0 first) (or uint16 words)"),
        (lambda: ptxfp.eval("cvt.rn.satfinite.e4m3x2.f32", np.ones(3, np.float32), 1.0, out=np.empty(3, E4M3)), ValueError, "(3, 2)"),
        (lambda: ptxfp.eval("cvt.rn.satfinite.e4m3x2.f32", np.ones(3, np.float32), 1.0, out=np.empty((3, 2), np.uint16)), ValueError, "(3,)"),
        (lambda: ptxfp.eval("cvt.rna.tf32.f32", np.ones(3, np.float32), out=np.empty(3, np.float16)), TypeError, "float32 (or uint32"),
    ],
)
def test_bad_arrays_name_the_legal_forms(call, error, words):
    with pytest.raises(error) as e:
        call()
    assert words in str(e.value)


def test_dtype_reports():
    i = ptxfp.Instr("cvt.rn.f16x2.e4m3x2")
    assert i.source_dtypes == (ML["e4m3"], np.dtype(np.uint16)) and i.source_lanes == 2 and i.result_lanes is None
    i = ptxfp.Instr("cvt.rs.satfinite.e2m1x4.f32", arch="sm_100a")
    assert i.result_dtype == ML["e2m1"] and i.result_lanes == 4 and i.source_types == ("f32",) * 4 + ("u32",)
    i = ptxfp.Instr("cvt.rn.satfinite.ue5m3x2.f32", arch="sm_107f")
    assert i.result_dtype == np.uint16 and i.result_lanes is None  # ml_dtypes has no ue5m3
    i = ptxfp.Instr("cvt.rna.tf32.f32")
    assert i.result_dtype == np.float32 and i.result_lanes is None
    assert ptxfp.eval("cvt.rna.tf32.f32", np.float32(1.0 + 2**-11)) == np.float32(1.0 + 2**-10)
    # A byte-order flag on one-byte codes is no byte order.
    x = np.array([[1.0, 2.0]], np.float32).astype(ML["e4m3"])
    assert ptxfp.eval("cvt.rn.f16x2.e4m3x2", x.astype(x.dtype.newbyteorder(">"))) == ptxfp.eval("cvt.rn.f16x2.e4m3x2", x)


# ml_dtypes' own conversions against the instructions. Each comparison lists the reasons for
# which their codes differ; every differing input must have one, and every listed reason must
# occur. The counts are printed (pytest -s) and summarised in the module's documentation.

#: Per format: the largest finite code, the sign bit, the value of the largest finite code.
FORMATS = {
    "e4m3": (0x7E, 0x80, 448.0),
    "e5m2": (0x7B, 0x80, 57344.0),
    "e2m3": (0x1F, 0x20, 7.5),
    "e3m2": (0x1F, 0x20, 28.0),
    "e2m1": (0x07, 0x08, 6.0),
}


def down_reasons(fmt, direction=None, satfinite=True, source="f32"):
    """(name, test) pairs: test(x, ml, ptx) marks the inputs (x as float64, the codes as
    integers) that differ for that reason."""
    if fmt == "ue8m0":
        return e8m0_reasons(direction, satfinite, source)
    top, sign, largest = FORMATS[fmt]
    neg = np.signbit

    def signed(x, code):
        return np.where(neg(x), code | sign, code)

    reasons = []
    if fmt == "e4m3":
        reasons += [
            ("NaN: ml_dtypes keeps a negative NaN's sign (0xFF), PTX writes 0x7F",
             lambda x, ml, p: np.isnan(x) & neg(x) & (ml == 0xFF) & (p == 0x7F)),
            ("Inf: ml_dtypes gives NaN (0x7F/0xFF, e4m3 has no Inf), .satfinite gives ±max (0x7E/0xFE)",
             lambda x, ml, p: np.isinf(x) & (ml == signed(x, 0x7F)) & (p == signed(x, top))),
            ("overflow: beyond 448 ml_dtypes rounds to NaN (0x7F/0xFF), .satfinite gives ±max (0x7E/0xFE)",
             lambda x, ml, p: np.isfinite(x) & (abs(x) > largest) & (ml == signed(x, 0x7F)) & (p == signed(x, top))),
        ]
    elif fmt == "e5m2":
        reasons += [
            ("NaN: ml_dtypes writes 0x7E or 0xFE (the sign kept), PTX 0x7F",
             lambda x, ml, p: np.isnan(x) & (ml == signed(x, 0x7E)) & (p == 0x7F)),
            ("Inf: ml_dtypes keeps ±Inf (0x7C/0xFC), .satfinite gives ±max (0x7B/0xFB)",
             lambda x, ml, p: np.isinf(x) & (ml == signed(x, 0x7C)) & (p == signed(x, top))),
            ("overflow: beyond 57344 ml_dtypes rounds to ±Inf (0x7C/0xFC), .satfinite gives ±max (0x7B/0xFB)",
             lambda x, ml, p: np.isfinite(x) & (abs(x) > largest) & (ml == signed(x, 0x7C)) & (p == signed(x, top))),
        ]
    else:
        # float6/float4 have no NaN: ml_dtypes writes a zero of the opposite sign.
        reasons.append((
            f"NaN: ml_dtypes' {ML[fmt].name} has no NaN and gives a zero (+NaN −0 {sign:#04x}, −NaN +0), "
            f"PTX gives +max ({top:#04x})",
            lambda x, ml, p: np.isnan(x) & (ml == np.where(neg(x), 0, sign)) & (p == top)))
    return reasons


def e8m0_code(x, up):
    """The ue8m0 code of 2^floor(log2 x) (up: 2^ceil(log2 x)) for positive finite x, from
    frexp: x = m·2^e with m in [0.5, 1)."""
    m, e = np.frexp(x)
    return (e - 1 + 127) + (up & (m != 0.5))


def e8m0_reasons(direction, satfinite, source):
    up = direction == "rp"
    big = 1.5 * 2.0**127  # from here ml_dtypes rounds past 2^127, onto its NaN

    def positive(x):
        return np.isfinite(x) & (x >= 2.0**-127) & (x < big)

    def nearest(x):
        m, _ = np.frexp(x)
        return e8m0_code(x, False) + (2 * m >= 1.5)  # ties go up

    reasons = [
        ("zero: ml_dtypes gives NaN 0xFF (e8m0 has no zero), PTX 0x00 (2^−127)",
         lambda x, ml, p: (x == 0) & (ml == 0xFF) & (p == 0x00)),
        ("negative: ml_dtypes gives NaN 0xFF, PTX converts the magnitude (the sign is ignored)",
         lambda x, ml, p: np.isfinite(x) & (x < 0) & (ml == 0xFF) & (p == PTX_OF_MAGNITUDE[0](-x))),
        ("from 1.5·2^127 up (±Inf too under .satfinite): ml_dtypes gives NaN 0xFF, PTX 2^127 (0xFE)",
         lambda x, ml, p: ~np.isnan(x) & (abs(x) >= big) & (ml == 0xFF) & (p == 0xFE)),
        (f"rounding: ml_dtypes rounds to nearest (ties up), .{direction} {'up' if up else 'toward zero'}",
         lambda x, ml, p: positive(x) & (ml == nearest(x)) & (p == e8m0_code(x, up))),
    ]
    if not satfinite and (up or source == "f16"):
        del reasons[2]  # .rp gives 0xFF there too, and without .satfinite ±Inf too; f16 stays below 2^16
    return reasons


#: The instruction of the comparison at hand applied to magnitudes (for the e8m0 sign reason).
PTX_OF_MAGNITUDE = [None]


def ptx_codes(spelling, arch, x, source):
    """Element 0 of the instruction's result on each value of x: f32 as operand b (element 0)
    with a = 0, f16/bf16 as element 0 of the pair."""
    if source == "f32":
        words = ptxfp.eval(spelling, np.zeros_like(x), x, arch=arch, out=np.empty(x.shape, WORDS[16 if "e2m1" not in spelling else 8]))
    else:
        pair = x.view(np.uint16).astype(np.uint32)
        words = ptxfp.eval(spelling, pair, arch=arch, out=np.empty(x.shape, WORDS[16 if "e2m1" not in spelling else 8]))
    return (words & (0x0F if "e2m1x2" in spelling else 0xFF)).astype(np.int64)


def edge_biased_f32(n, seed):
    """n random f32 words, n with exponents around the narrow formats' ranges and fractions
    cut at a random bit (exact values of every format, ties, and ±1 ulp around them), and every
    special: zeros, subnormals, the largest finite, infinities, NaNs with payloads."""
    rng = np.random.default_rng(seed)
    plain = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    exponent = rng.integers(127 - 130, 127 + 131, n).clip(0, 254).astype(np.uint32)
    cut = rng.integers(0, 24, n).astype(np.uint32)
    frac = (rng.integers(0, 1 << 23, n, dtype=np.uint64).astype(np.uint32) >> cut) << cut
    frac |= np.where(rng.random(n) < 0.3, (np.uint32(1) << cut) >> np.uint32(1), 0).astype(np.uint32)  # ties
    sign = rng.integers(0, 2, n).astype(np.uint32) << np.uint32(31)
    edge = ((sign | exponent << np.uint32(23) | frac & np.uint32(0x7FFFFF)).astype(np.int64) + rng.integers(-1, 2, n)) & 0xFFFFFFFF
    specials = np.array([0, 1, 2, 0x7FFFFF, 0x800000, 0x7F7FFFFF, 0x7F800000, 0x7F800001, 0x7FC00000, 0x7FFFFFFF,
                         0x7FA00000, 0x7F7FE000, 0x3F800000, 0x43E80000, 0x47700000], np.uint32)  # 464, 61440
    specials = np.concatenate([specials, specials | np.uint32(0x80000000)])
    return np.concatenate([plain, edge.astype(np.uint32), specials]).view(np.float32)


def down_comparisons():
    """(label, ml_dtypes dtype name, spelling, arch, source, e8m0 direction) of every .rn
    down-conversion to a format ml_dtypes has (and the .rz and .rp ones to ue8m0) from f32,
    f16x2 and bf16x2."""
    lowest = {e["spelling"]: e["lowest_target"] for e in ptxfp.ops()}
    found = []
    for fmt in ML:
        for source, operand in (("f32", "f32"), ("f16", "f16x2"), ("bf16", "bf16x2")):
            spellings = [f"cvt.rn.satfinite.{fmt}x2.{operand}"] if fmt != "ue8m0" else [
                f"cvt.{d}{s}.ue8m0x2.{operand if operand != 'f16x2' else 'f32'}" for d in ("rz", "rp") for s in ("", ".satfinite")]
            for s in spellings:
                if s in lowest:
                    found.append((fmt, source, s, lowest[s], s.split(".")[1]))
    return found


DOWN = down_comparisons()


def source_values(source):
    if source == "f32":
        return edge_biased_f32(1 << 20, 11)
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    return every.view(np.float16 if source == "f16" else BF16)


def test_every_down_conversion_has_a_comparison():
    assert len(DOWN) == 5 * 3 + 4 * 3  # e8m0: rz, rp, each with and without .satfinite; f16 through f32
    assert len(edge_biased_f32(1 << 20, 11)) >= 2 * 10**6


@pytest.mark.parametrize("fmt, source, spelling, arch, direction", DOWN, ids=[f"{d[2]}<-{d[1]}" for d in DOWN])
def test_where_ml_dtypes_casts_differ_from_the_instruction(fmt, source, spelling, arch, direction, capsys):
    with np.errstate(invalid="ignore"):  # NaN inputs
        compare_down(fmt, source, spelling, arch, direction, capsys)


def compare_down(fmt, source, spelling, arch, direction, capsys):
    x = source_values(source)
    with np.errstate(all="ignore"):
        ml = x.astype(ML[fmt]).view(np.uint8).astype(np.int64)
    # f16 to ue8m0 has no f16x2 instruction: through f32, which holds every f16 exactly.
    values = x.astype(np.float32) if source == "f16" and fmt == "ue8m0" else x
    via = "f32" if values.dtype == np.float32 else source
    p = ptx_codes(spelling, arch, values, via)
    PTX_OF_MAGNITUDE[0] = lambda m: ptx_codes(spelling, arch, m.astype(values.dtype), via)
    xf = x.astype(np.float64)
    differ = ml != p
    counts = collections.Counter()
    left = differ.copy()
    for name, test in down_reasons(fmt, direction, "satfinite" in spelling, source):
        hit = left & test(xf, ml, p)
        counts[name] = int(hit.sum())
        left &= ~hit
    unexplained = np.flatnonzero(left)
    assert len(unexplained) == 0, [(float(xf[i]), hex(ml[i]), hex(p[i])) for i in unexplained[:10]]
    assert all(counts.values()), counts  # every listed reason occurs
    with capsys.disabled():
        print(f"\n{spelling} vs astype({ML[fmt].name}) on {len(x)} {source} inputs: {int(differ.sum())} differ")
        for name, n in counts.items():
            print(f"    {n:8d}  {name}")


UP = [(fmt, dst) for fmt in ML for dst in ("f16x2", "bf16x2")]


@pytest.mark.parametrize("fmt, dst", UP)
def test_where_ml_dtypes_up_casts_differ_from_the_instruction(fmt, dst, capsys):
    lowest = {e["spelling"]: e["lowest_target"] for e in ptxfp.ops()}
    spelling = f"cvt.rn.{dst}.{fmt}x2"
    if spelling not in lowest:
        assert (fmt, dst) == ("ue8m0", "f16x2")  # PTX converts ue8m0 to bf16x2 only
        return
    bits = {"e2m1": 4, "e2m3": 6, "e3m2": 6}.get(fmt, 8)
    codes = np.arange(1 << bits, dtype=np.uint8)
    target = np.float16 if dst == "f16x2" else BF16
    ml = codes.view(ML[fmt]).astype(target).view(np.uint16)
    words = ptxfp.eval(spelling, codes.astype(np.uint16 if bits > 4 else np.uint8), arch=lowest[spelling],
                       out=np.empty(len(codes), np.uint32))
    p = (words & 0xFFFF).astype(np.uint16)
    quiet = 0x7E00 if dst == "f16x2" else 0x7FC0
    is_nan = np.isnan(codes.view(ML[fmt]).astype(np.float32))
    sign = np.where(np.signbit(codes.view(ML[fmt]).astype(np.float32)), 0x8000, 0)
    reason = is_nan & (ml == quiet | sign) & (p == 0x7FFF)
    differ = ml != p
    assert not np.any(differ & ~reason), [(hex(c), hex(a), hex(b)) for c, a, b in zip(codes[differ], ml[differ], p[differ])]
    expected = {"e4m3": 2, "e5m2": 6, "ue8m0": 1}.get(fmt, 0)  # the NaN codes
    assert int(differ.sum()) == expected
    if expected:
        with capsys.disabled():
            print(f"\n{spelling} vs astype({np.dtype(target).name}) on all {len(codes)} codes: {expected} differ: "
                  f"NaN codes {', '.join(hex(c) for c in codes[differ])}: ml_dtypes gives the quiet NaN "
                  f"{quiet:#06x} with the code's sign, PTX the canonical 0x7FFF")


def test_strided_broadcast_and_threaded_blocks_give_the_bits_of_contiguous_words():
    # Operands read in place (negative and zero strides, the odd/even halves of one array)
    # over several blocks of 2^14 elements and threads, against contiguous copies; the
    # float4_e2m1fn result unpacked from the words natively.
    rng = np.random.default_rng(5)
    n = 3 * (1 << 14) + 5
    x = (rng.standard_normal(3 * n + 7) * 3).astype(np.float32)
    a, b = x[1 : 2 * n : 2], x[3 * n + 6 :: -3][:n]
    for spelling, form in (("cvt.rn.satfinite.e4m3x2.f32", ML["e4m3"]), ("cvt.rn.satfinite.e2m1x2.f32", ML["e2m1"])):
        instr = ptxfp.Instr(spelling, arch="sm_100a")
        word = WORDS[instr._native.result_bits]
        want = instr.eval(a.copy(), b.copy(), out=np.empty(n, word))
        got = instr.eval(a, b)
        assert got.dtype == form and got.shape == (n, 2)
        assert np.array_equal(ml_to_words(got, instr.result_type, instr._native.result_bits), want)
        assert np.array_equal(instr.eval(a, b, out=np.empty(n, word)), want)
        # A broadcast scalar as operand a (stride 0).
        scalar_a = instr.eval(np.float32(1.5), b, out=np.empty(n, word))
        assert np.array_equal(scalar_a, instr.eval(np.full(n, 1.5, np.float32), b.copy(), out=np.empty(n, word)))
    # In the up direction, a strided float8_e4m3fn operand (its last axis kept).
    codes = rng.integers(0, 256, (2 * n, 2), dtype=np.uint8).view(ML["e4m3"])[::2]
    words = ml_to_words(codes, "e4m3x2", 16)
    assert np.array_equal(ptxfp.eval("cvt.rn.f16x2.e4m3x2", codes), ptxfp.eval("cvt.rn.f16x2.e4m3x2", words))
