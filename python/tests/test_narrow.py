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
