//! `testp` (PTX 9.7.3.1): classify a value; the predicate is returned as 1 or 0.

use crate::format::{Class, Format};

/// The six properties `testp` can test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Property {
    Finite,
    Infinite,
    Number,
    NotANumber,
    Normal,
    Subnormal,
}

impl Property {
    pub const ALL: [Property; 6] = [
        Property::Finite,
        Property::Infinite,
        Property::Number,
        Property::NotANumber,
        Property::Normal,
        Property::Subnormal,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Property::Finite => "finite",
            Property::Infinite => "infinite",
            Property::Number => "number",
            Property::NotANumber => "notanumber",
            Property::Normal => "normal",
            Property::Subnormal => "subnormal",
        }
    }
}

/// 1 if `a` has the property, else 0. Zeros count as normal \[DOC PTX 9.7.3.1\].
pub fn testp(fmt: Format, prop: Property, a: u64) -> u64 {
    let class = fmt.classify(a);
    let holds = match prop {
        Property::Finite => !matches!(class, Class::Inf | Class::Nan),
        Property::Infinite => class == Class::Inf,
        Property::Number => class != Class::Nan,
        Property::NotANumber => class == Class::Nan,
        Property::Normal => matches!(class, Class::Normal | Class::Zero),
        Property::Subnormal => class == Class::Subnormal,
    };
    holds as u64
}
