//! Spelling → [`Instr`], with errors that name the offending part and what is legal instead.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use super::catalog::{self, CatalogEntry};
use super::instr::{Instr, Mode, Modifiers, MufuFn, Opcode, RroMode, Type};
use crate::ops::testp::Property;
use crate::quote::Quoted;
use crate::round::Rounding;

/// Why a spelling is not a legal instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub spelling: String,
    pub kind: ParseErrorKind,
    /// What is wrong and what is legal instead.
    pub message: String,
}

/// The two ways a spelling fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParseErrorKind {
    /// A word that is no mnemonic, modifier or type of it, or words in the wrong place.
    Unknown,
    /// Known words whose combination PTX does not have (an illegal modifier or type).
    Illegal,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid instruction {}: {}", Quoted(&self.spelling), self.message)
    }
}

impl std::error::Error for ParseError {}

const PTX_MNEMONICS: [&str; 21] = [
    "testp", "copysign", "add", "sub", "mul", "fma", "mad", "div", "abs", "neg", "min", "max", "rcp", "sqrt", "rsqrt",
    "sin", "cos", "lg2", "ex2", "tanh", "cvt",
];

impl FromStr for Instr {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Instr, ParseError> {
        let fail = |kind| move |message: String| ParseError { spelling: s.to_string(), kind, message };
        let candidate = tokenize(s).map_err(fail(ParseErrorKind::Unknown))?;
        resolve(candidate).map_err(fail(ParseErrorKind::Illegal))
    }
}

impl Instr {
    /// Build an instruction from its parts; fails exactly when the spelling would.
    pub fn from_parts(opcode: Opcode, mode: Mode, mods: Modifiers, ty: Type) -> Result<Instr, ParseError> {
        let candidate = Instr::candidate(opcode, mode, mods, ty);
        resolve(candidate).map_err(|message| ParseError {
            spelling: candidate.to_string(),
            kind: ParseErrorKind::Illegal,
            message,
        })
    }

    /// The catalog entries of this spelling (one per legal operand count).
    pub fn catalog_entries(&self) -> &'static [CatalogEntry] {
        catalog::lookup(&self.to_string()).unwrap_or(&[])
    }
}

/// Check a structurally parsed instruction against the catalog and fill in what its checks
/// need: its operand counts and the lowest architecture of each.
fn resolve(candidate: Instr) -> Result<Instr, String> {
    let spelling = candidate.to_string();
    match catalog::lookup(&spelling) {
        Some(entries) => Ok(candidate.resolved(entries.iter().map(|e| (e.sources, e.targets)))),
        None => Err(diagnose(&candidate)),
    }
}

/// Split a spelling into an unvalidated instruction, rejecting unknown words, duplicates and
/// misplaced types.
fn tokenize(s: &str) -> Result<Instr, String> {
    let mut parts = s.split('.');
    let head = parts.next().unwrap_or_default();
    match head {
        "MUFU" => return tokenize_mufu(parts.collect()),
        "RRO" => return tokenize_rro(parts.collect()),
        _ => {}
    }
    if matches!(head, "mma" | "wmma" | "wgmma" | "tcgen05") {
        return Err(format!(
            "{} is a tensor-core instruction, evaluated tile by tile: `ptxfp mma SPELLING --arch sm_XX --a A.npy --b B.npy --out D.npy` (from Rust, ptxfp::mma::MmaInstr)",
            Quoted(head)
        ));
    }
    if !PTX_MNEMONICS.contains(&head) {
        let shown = if head.is_empty() {
            "an empty mnemonic".to_string()
        } else {
            format!("unknown mnemonic {}", Quoted(head))
        };
        return Err(format!("{shown}; known: {}, MUFU, RRO", PTX_MNEMONICS.join(", ")));
    }
    let mut rest: Vec<&str> = parts.collect();
    let property = if head == "testp" {
        if rest.is_empty() {
            return Err(format!("testp needs a property: {}", property_list()));
        }
        let word = rest.remove(0);
        Some(Property::ALL.into_iter().find(|p| p.name() == word).ok_or_else(|| {
            format!("unknown testp property {}; legal: {}", Quoted(&format!(".{word}")), property_list())
        })?)
    } else {
        None
    };

    let mut mode = Mode::Default;
    let mut mods = Modifiers::default();
    let mut types: Vec<Type> = Vec::new();
    for word in rest {
        if let Some(ty) = Type::from_name(word) {
            types.push(ty);
            continue;
        }
        if !types.is_empty() {
            return Err(format!("modifier {} after the type; the type comes last", Quoted(&format!(".{word}"))));
        }
        let new_mode = match word {
            "rn" => Some(Mode::Round(Rounding::Rn)),
            "rz" => Some(Mode::Round(Rounding::Rz)),
            "rm" => Some(Mode::Round(Rounding::Rm)),
            "rp" => Some(Mode::Round(Rounding::Rp)),
            "rni" => Some(Mode::Integral(Rounding::Rn)),
            "rzi" => Some(Mode::Integral(Rounding::Rz)),
            "rmi" => Some(Mode::Integral(Rounding::Rm)),
            "rpi" => Some(Mode::Integral(Rounding::Rp)),
            "rna" => Some(Mode::TiesAway),
            "rs" => Some(Mode::Stochastic),
            "approx" => Some(Mode::Approx),
            "full" => Some(Mode::Full),
            _ => None,
        };
        if let Some(m) = new_mode {
            if mode != Mode::Default {
                return Err(format!("more than one rounding/precision modifier ({mode} and .{word}); give one"));
            }
            mode = m;
            continue;
        }
        if let Some(why) = unestablished(word) {
            return Err(why);
        }
        let flag = match word {
            "satfinite" => &mut mods.satfinite,
            "scaled::n2::ue8m0" => &mut mods.scaled,
            "ftz" => &mut mods.ftz,
            "oob" => &mut mods.oob,
            "relu" => &mut mods.relu,
            "sat" => &mut mods.sat,
            "NaN" => &mut mods.nan,
            "xorsign" => &mut mods.xorsign,
            "abs" => &mut mods.abs,
            _ => return Err(unknown_word(head, word)),
        };
        if *flag {
            return Err(format!("modifier '.{word}' given twice"));
        }
        *flag = true;
    }
    let opcode = match (head, types.as_slice()) {
        (_, []) => return Err(format!("missing type; {head} takes {}", legal_types(head))),
        ("cvt", [_]) => return Err("cvt needs a destination and a source type, e.g. cvt.rn.f16.f32".into()),
        ("cvt", [_, from]) => Opcode::Cvt { from: *from },
        ("cvt", _) => return Err("cvt takes exactly two types (destination, source)".into()),
        (_, [_]) => opcode_of(head, property),
        ("add" | "sub" | "fma", [ty, from]) => {
            return Ok(Instr::candidate(opcode_of(head, property), mode, mods, *ty).with_mixed_source(*from));
        }
        ("add" | "sub" | "fma" | "mul", [_, _, _, ..]) => return Err(packed_mixed(head, &types)),
        (_, [_, ..]) => {
            let found: Vec<_> = types.iter().map(|t| format!(".{}", t.name())).collect();
            return Err(format!(
                "{head} takes one type, found {}; legal: {} (only add, sub and fma take a second, \
                 the mixed-precision source type: add.rn.f32.f16)",
                found.join(" "),
                legal_types(head)
            ));
        }
    };
    Ok(Instr::candidate(opcode, mode, mods, types[0]))
}

/// The refusal of a modifier PTX has whose rule no source ptxfp knows states: ptxas 13.5
/// accepts these on sm_107a/sm_107f (PTX ISA 9.4, data/ptxas/cvt_lowprec.tsv), but without the
/// 9.4 text or a CC 10.7 GPU what they compute is a guess, which ptxfp does not make.
fn unestablished(word: &str) -> Option<String> {
    let what = match word {
        "pzo" => "its meaning is not in the PTX ISA text ptxfp has (9.1)",
        "scaled::n1::ue8m0" => {
            "its scale byte (ptxas lowers it to F2FP.SCALE_BY_C with the byte in C[31:24]) is \
             applied in a direction no source states"
        }
        _ => return None,
    };
    Some(format!(
        "'.{word}' is a PTX 9.4 cvt modifier (sm_107a and sm_107f) that ptxfp does not evaluate: {what}; \
         the same spelling without it is evaluated"
    ))
}

/// The refusal of the PTX 9.4 mixed packed forms (`add.rn.f32x2.f16x2.f32x2`,
/// `mul.rz.f16x2.f32x2.f32x2`): ptxas 13.5 has them, but the PTX text that defines them is
/// not among ptxfp's sources, so it does not evaluate them (README, "Not there yet").
fn packed_mixed(head: &str, types: &[Type]) -> String {
    let spelled: Vec<_> = types.iter().map(|t| format!(".{}", t.name())).collect();
    format!(
        "{head} with the types {} is a PTX 9.4 mixed packed form, which ptxfp does not evaluate: the \
         text that defines it is not among its sources; the mixed forms it has take two types \
         ({head}.rn.f32.f16, {head}.rn.f32.bf16)",
        spelled.join(" ")
    )
}

fn tokenize_mufu(rest: Vec<&str>) -> Result<Instr, String> {
    let fn_list = || MufuFn::ALL.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ");
    let Some((&name, tail)) = rest.split_first() else {
        return Err(format!("MUFU needs a function: {}", fn_list()));
    };
    let func = MufuFn::ALL
        .into_iter()
        .find(|f| f.name() == name)
        .ok_or_else(|| format!("unknown MUFU function {}; legal: {}", Quoted(&format!(".{name}")), fn_list()))?;
    let mut ty = Type::F32;
    let mut mods = Modifiers::default();
    for &word in tail {
        match word {
            "F16" if ty == Type::F32 => ty = Type::F16,
            "BF16" if ty == Type::F32 => ty = Type::BF16,
            "SAT" if !mods.sat => mods.sat = true,
            "F16" | "BF16" | "SAT" => return Err(format!("modifier '.{word}' given twice or with another format")),
            _ => {
                return Err(format!(
                    "unknown MUFU modifier {}; legal: .SAT, and .F16 or .BF16 for EX2 and TANH",
                    Quoted(&format!(".{word}"))
                ))
            }
        }
    }
    Ok(Instr::candidate(Opcode::Mufu(func), Mode::Default, mods, ty))
}

fn tokenize_rro(rest: Vec<&str>) -> Result<Instr, String> {
    let mode = match rest.as_slice() {
        ["SINCOS"] => RroMode::Sincos,
        ["EX2"] => RroMode::Ex2,
        _ => return Err("RRO takes one mode: RRO.SINCOS or RRO.EX2".into()),
    };
    Ok(Instr::candidate(Opcode::Rro(mode), Mode::Default, Modifiers::default(), Type::F32))
}

fn opcode_of(head: &str, property: Option<Property>) -> Opcode {
    match head {
        "testp" => Opcode::Testp(property.expect("testp property parsed")),
        "copysign" => Opcode::Copysign,
        "add" => Opcode::Add,
        "sub" => Opcode::Sub,
        "mul" => Opcode::Mul,
        "fma" => Opcode::Fma,
        "mad" => Opcode::Mad,
        "div" => Opcode::Div,
        "abs" => Opcode::Abs,
        "neg" => Opcode::Neg,
        "min" => Opcode::Min,
        "max" => Opcode::Max,
        "rcp" => Opcode::Rcp,
        "sqrt" => Opcode::Sqrt,
        "rsqrt" => Opcode::Rsqrt,
        "sin" => Opcode::Sin,
        "cos" => Opcode::Cos,
        "lg2" => Opcode::Lg2,
        "ex2" => Opcode::Ex2,
        "tanh" => Opcode::Tanh,
        other => unreachable!("mnemonic {other} checked against PTX_MNEMONICS"),
    }
}

fn property_list() -> String {
    Property::ALL.iter().map(|p| format!(".{}", p.name())).collect::<Vec<_>>().join(" ")
}

/// The spelled words of an instruction's modifiers, in canonical order.
fn modifier_words(i: &Instr) -> Vec<String> {
    let mode = (i.mode != Mode::Default).then(|| i.mode.to_string());
    mode.into_iter().chain(i.mods.spelled(i.ty).map(str::to_string)).collect()
}

fn entries_of(head: &str) -> impl Iterator<Item = &'static CatalogEntry> + '_ {
    catalog::entries().iter().filter(move |e| e.instr.opcode.mnemonic() == head)
}

fn legal_types(head: &str) -> String {
    let set: BTreeSet<Type> = entries_of(head).map(|e| e.instr.ty).collect();
    set.iter().map(|t| format!(".{}", t.name())).collect::<Vec<_>>().join(" ")
}

fn unknown_word(head: &str, word: &str) -> String {
    let mut legal = BTreeSet::new();
    for e in entries_of(head) {
        legal.extend(modifier_words(&e.instr));
    }
    let legal: Vec<_> = legal.into_iter().collect();
    format!("unknown modifier {} for {head}; legal modifiers: {}", Quoted(&format!(".{word}")), legal.join(" "))
}

/// Explain why a structurally valid spelling is not in the catalog.
fn diagnose(i: &Instr) -> String {
    let head = i.opcode.mnemonic();
    let same_op: Vec<&CatalogEntry> = catalog::entries()
        .iter()
        .filter(|e| match (e.instr.opcode, i.opcode) {
            (Opcode::Cvt { .. }, Opcode::Cvt { .. }) => true,
            (a, b) => a == b && e.instr.mixed.is_some() == i.mixed.is_some(),
        })
        .collect();
    let same_type: Vec<&CatalogEntry> = same_op
        .iter()
        .copied()
        .filter(|e| e.instr.ty == i.ty && e.instr.opcode == i.opcode && e.instr.mixed == i.mixed)
        .collect();
    let base = base_name(i);
    if same_type.is_empty() {
        if let Opcode::Cvt { from } = i.opcode {
            return format!("no conversion to .{} from .{}", i.ty.name(), from.name());
        }
        if i.mixed.is_some() {
            let forms: BTreeSet<String> = same_op.iter().map(|e| base_name(&e.instr)).collect();
            let forms = if forms.is_empty() {
                "only add, sub and fma have them".to_string()
            } else {
                format!("legal: {}", forms.into_iter().collect::<Vec<_>>().join(" "))
            };
            return format!("{head} has no mixed-precision form {base}; {forms}");
        }
        let types: BTreeSet<Type> = same_op.iter().map(|e| e.instr.ty).collect();
        let types: Vec<_> = types.iter().map(|t| format!(".{}", t.name())).collect();
        return format!("{head} has no .{} form; legal types: {}", i.ty.name(), types.join(" "));
    }
    let given = modifier_words(i);
    let mut allowed = BTreeSet::new();
    for e in &same_type {
        allowed.extend(modifier_words(&e.instr));
    }
    let allowed_list =
        if allowed.is_empty() { "none".to_string() } else { allowed.iter().cloned().collect::<Vec<_>>().join(" ") };
    for w in &given {
        if !allowed.contains(w) {
            return format!("{} is not allowed on {base}; its modifiers are: {allowed_list}", Quoted(w));
        }
    }
    // Legal spellings that contain every given modifier: what is missing?
    let supersets: Vec<Vec<String>> = same_type
        .iter()
        .map(|e| modifier_words(&e.instr))
        .filter(|words| given.iter().all(|w| words.contains(w)))
        .collect();
    let mut completions = BTreeSet::new();
    for words in &supersets {
        let missing: Vec<&String> = words.iter().filter(|w| !given.contains(w)).collect();
        if missing.len() == 1 {
            completions.insert(missing[0].clone());
        }
    }
    if !completions.is_empty() {
        let list: Vec<_> = completions.into_iter().collect();
        let what = if given.is_empty() { base } else { format!("{base} with {}", given.join(" ")) };
        return format!("{what} also needs one of: {}", list.join(" "));
    }
    let mut examples: Vec<String> = same_type.iter().map(|e| e.instr.to_string()).collect();
    examples.dedup();
    examples.truncate(12);
    format!(
        "the modifiers {} cannot be combined on {base}; legal spellings include: {}",
        given.join(" "),
        examples.join(", ")
    )
}

/// `add.f64`, `cvt.f16.f32`, `MUFU.RCP`: the instruction without its modifiers.
fn base_name(i: &Instr) -> String {
    match i.opcode {
        Opcode::Mufu(f) => format!("MUFU.{}", f.name()),
        Opcode::Rro(m) => format!("RRO.{}", m.name()),
        Opcode::Cvt { from } => format!("cvt.{}.{}", i.ty.name(), from.name()),
        Opcode::Testp(p) => format!("testp.{}.{}", p.name(), i.ty.name()),
        op => match i.mixed {
            Some(from) => format!("{}.{}.{}", op.mnemonic(), i.ty.name(), from.name()),
            None => format!("{}.{}", op.mnemonic(), i.ty.name()),
        },
    }
}
