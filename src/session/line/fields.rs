//! Forgiving JSON field readers for the index pass over a session line.
//! Each one accepts any JSON value, keeps what it understands and skips the
//! rest without allocating, so a wrongly typed field never costs a whole entry.

use compact_str::CompactString;
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;
use std::marker::PhantomData;

/// How many characters of a long text the index keeps where pi shows only
/// the start of it (message texts: pi's tree cuts them at 200 units).
pub const SHORT_TEXT_CHARS: usize = 256;

/// No cut: texts pi's tree shows whole (branch summaries, custom messages,
/// bash commands, error messages).
pub const WHOLE: usize = usize::MAX;

/// A value read from any JSON: each reader overrides the shapes it keeps;
/// every other shape is skipped (arrays and objects drained unread).
pub trait Lenient<'de>: Sized + Default {
    fn from_str(_: &str) -> Self {
        Self::default()
    }
    fn from_num(_: f64) -> Self {
        Self::default()
    }
    fn from_bool(_: bool) -> Self {
        Self::default()
    }
    fn from_null() -> Self {
        Self::default()
    }
    fn from_seq<A: SeqAccess<'de>>(mut a: A) -> Result<Self, A::Error> {
        while a.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Self::default())
    }
    fn from_map<A: MapAccess<'de>>(mut a: A) -> Result<Self, A::Error> {
        while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Self::default())
    }
}

struct AnyVisitor<T>(PhantomData<T>);

impl<'de, T: Lenient<'de>> Visitor<'de> for AnyVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        Ok(T::from_str(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        Ok(T::from_num(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        Ok(T::from_num(v as f64))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        Ok(T::from_num(v as f64))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<T, E> {
        Ok(T::from_bool(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<T, E> {
        Ok(T::from_null())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<T, A::Error> {
        T::from_seq(a)
    }
    fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<T, A::Error> {
        T::from_map(a)
    }
}

/// Deserializes any JSON value through `T`'s [`Lenient`] readers.
pub fn deserialize_lenient<'de, D: Deserializer<'de>, T: Lenient<'de>>(
    d: D,
) -> Result<T, D::Error> {
    d.deserialize_any(AnyVisitor(PhantomData))
}

/// Implements `Deserialize` through the type's [`Lenient`] readers.
macro_rules! lenient_deserialize {
    ($($ty:ident $(<$param:ident>)?),*) => {$(
        impl<'de $(, $param: serde::Deserialize<'de>)?> serde::Deserialize<'de> for $ty $(<$param>)? {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::session::line::fields::deserialize_lenient(d)
            }
        }
    )*};
}
pub(crate) use lenient_deserialize;
lenient_deserialize!(Scalar, Short, StrLen, Obj<T>, List<T>);

/// A JSON value with strings and numbers kept, and arrays and objects
/// reduced to their shape; `Missing` is the default for an absent field.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Scalar {
    #[default]
    Missing,
    Null,
    Str(CompactString),
    Num(f64),
    Bool(bool),
    Array,
    Object,
}

impl Scalar {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Scalar::Str(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Scalar::Num(n) => Some(*n),
            _ => None,
        }
    }
    pub fn into_compact(self) -> Option<CompactString> {
        match self {
            Scalar::Str(s) => Some(s),
            _ => None,
        }
    }
    /// JavaScript truthiness, as pi tests `if (entry.label)`.
    pub fn is_truthy(&self) -> bool {
        match self {
            Scalar::Missing | Scalar::Null => false,
            Scalar::Str(s) => !s.is_empty(),
            Scalar::Num(n) => *n != 0.0 && !n.is_nan(),
            Scalar::Bool(b) => *b,
            Scalar::Array | Scalar::Object => true,
        }
    }
    /// `value == null` in JavaScript: absent or null.
    pub fn is_nullish(&self) -> bool {
        matches!(self, Scalar::Missing | Scalar::Null)
    }
}

impl<'de> Lenient<'de> for Scalar {
    fn from_str(v: &str) -> Self {
        Scalar::Str(CompactString::from(v))
    }
    fn from_num(v: f64) -> Self {
        Scalar::Num(v)
    }
    fn from_bool(v: bool) -> Self {
        Scalar::Bool(v)
    }
    fn from_null() -> Self {
        Scalar::Null
    }
    fn from_seq<A: SeqAccess<'de>>(mut a: A) -> Result<Self, A::Error> {
        while a.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::Array)
    }
    fn from_map<A: MapAccess<'de>>(mut a: A) -> Result<Self, A::Error> {
        while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Object)
    }
}

/// The start of a possibly huge string: at most [`SHORT_TEXT_CHARS`]
/// characters, plus whether the whole of it has any non-blank character.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Short {
    pub text: String,
    pub truncated: bool,
    pub has_text: bool,
    pub is_string: bool,
    /// JavaScript truthiness of the value, whatever its type (pi tests
    /// `if (entry.summary)`).
    pub truthy: bool,
}

/// A [`Short`] as a stored index keeps it, field by field (its own
/// `Deserialize` reads a session line's JSON value leniently): for
/// `#[serde(with = "short_stored")]`.
pub(crate) mod short_stored {
    use super::Short;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    struct Stored<T> {
        text: T,
        truncated: bool,
        has_text: bool,
        is_string: bool,
        truthy: bool,
    }

    fn stored(s: &Short) -> Stored<&str> {
        Stored {
            text: &s.text,
            truncated: s.truncated,
            has_text: s.has_text,
            is_string: s.is_string,
            truthy: s.truthy,
        }
    }

    fn short(s: Stored<String>) -> Short {
        Short {
            text: s.text,
            truncated: s.truncated,
            has_text: s.has_text,
            is_string: s.is_string,
            truthy: s.truthy,
        }
    }

    pub fn serialize<S: Serializer>(v: &Short, s: S) -> Result<S::Ok, S::Error> {
        stored(v).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Short, D::Error> {
        Stored::deserialize(d).map(short)
    }

    /// The same for an `Option<Short>`.
    pub mod opt {
        use super::{Short, Stored, short, stored};
        use serde::{Deserialize, Deserializer, Serialize, Serializer};

        pub fn serialize<S: Serializer>(v: &Option<Short>, s: S) -> Result<S::Ok, S::Error> {
            v.as_ref().map(stored).serialize(s)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Short>, D::Error> {
            Option::<Stored<String>>::deserialize(d).map(|v| v.map(short))
        }
    }
}

impl Short {
    pub fn new(v: &str) -> Short {
        Short::cut(v, SHORT_TEXT_CHARS)
    }

    /// The first `chars` characters of `v` ([`WHOLE`]: all of it).
    pub fn cut(v: &str, chars: usize) -> Short {
        let cut = if chars == WHOLE {
            None
        } else {
            v.char_indices().nth(chars).map(|(i, _)| i)
        };
        let text = &v[..cut.unwrap_or(v.len())];
        Short {
            text: text.to_string(),
            truncated: cut.is_some(),
            has_text: !v.trim_start().is_empty(),
            is_string: true,
            truthy: !v.is_empty(),
        }
    }

    /// Appends another piece of text (pi joins text blocks without a separator).
    pub fn push(&mut self, other: &Short) {
        self.push_cut(other, SHORT_TEXT_CHARS);
    }

    /// Appends another piece, keeping at most `chars` characters in all.
    pub fn push_cut(&mut self, other: &Short, chars: usize) {
        self.has_text |= other.has_text;
        self.is_string |= other.is_string;
        self.truthy |= other.truthy;
        if self.truncated {
            return;
        }
        let cut = if chars == WHOLE {
            None
        } else {
            let room = chars.saturating_sub(self.text.chars().count());
            other.text.char_indices().nth(room).map(|(i, _)| i)
        };
        self.text
            .push_str(&other.text[..cut.unwrap_or(other.text.len())]);
        self.truncated = cut.is_some() || other.truncated;
    }
}

impl<'de> Lenient<'de> for Short {
    fn from_str(v: &str) -> Self {
        Short::new(v)
    }
    fn from_num(v: f64) -> Self {
        Short::truthy(v != 0.0 && !v.is_nan())
    }
    fn from_bool(v: bool) -> Self {
        Short::truthy(v)
    }
    fn from_seq<A: SeqAccess<'de>>(mut a: A) -> Result<Self, A::Error> {
        while a.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Short::truthy(true))
    }
    fn from_map<A: MapAccess<'de>>(mut a: A) -> Result<Self, A::Error> {
        while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Short::truthy(true))
    }
}

impl Short {
    /// A value that is not a string: no text, only its truthiness.
    fn truthy(truthy: bool) -> Short {
        Short {
            truthy,
            ..Short::default()
        }
    }
}

/// A [`Short`] of at most `N` characters ([`WHOLE`]: all of them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cut<const N: usize>(pub Short);

/// A text read whole.
pub type Whole = Cut<WHOLE>;

impl<'de, const N: usize> Lenient<'de> for Cut<N> {
    fn from_str(v: &str) -> Self {
        Cut(Short::cut(v, N))
    }
    fn from_num(v: f64) -> Self {
        Cut(Short::from_num(v))
    }
    fn from_bool(v: bool) -> Self {
        Cut(Short::from_bool(v))
    }
    fn from_seq<A: SeqAccess<'de>>(a: A) -> Result<Self, A::Error> {
        Short::from_seq(a).map(Cut)
    }
    fn from_map<A: MapAccess<'de>>(a: A) -> Result<Self, A::Error> {
        Short::from_map(a).map(Cut)
    }
}

impl<'de, const N: usize> Deserialize<'de> for Cut<N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_lenient(d)
    }
}

/// pi's `normalize`: tabs and newlines become spaces, then trimmed.
pub fn normalize(s: &str) -> String {
    crate::jstext::trim(&s.replace(['\n', '\t'], " ")).to_string()
}

/// What pi's tree shows of a bash call's command: the first 50 units of
/// it made one line, and whether the command (as written) is longer. Made
/// as the call is read, so the whole command need not be kept.
pub fn bash_command(raw: &str) -> Short {
    Short {
        text: crate::jstext::slice(&normalize(raw), 0, Some(50)).into_owned(),
        truncated: crate::jstext::len_utf16(raw) > 50,
        has_text: true,
        is_string: true,
        truthy: !raw.is_empty(),
    }
}

/// The length in bytes of a string value (image data), without keeping it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StrLen(pub usize);

impl Lenient<'_> for StrLen {
    fn from_str(v: &str) -> Self {
        StrLen(v.len())
    }
}

/// An object field read as `T` when it is an object, and `None` otherwise.
#[derive(Debug, Clone, PartialEq)]
pub struct Obj<T>(pub Option<T>);

impl<T> Default for Obj<T> {
    fn default() -> Self {
        Obj(None)
    }
}

impl<'de, T: Deserialize<'de>> Lenient<'de> for Obj<T> {
    fn from_map<A: MapAccess<'de>>(a: A) -> Result<Self, A::Error> {
        T::deserialize(de::value::MapAccessDeserializer::new(a)).map(|t| Obj(Some(t)))
    }
}

/// A list field read element by element as `T` when it is an array.
#[derive(Debug, Clone, PartialEq)]
pub struct List<T>(pub Option<Vec<T>>);

impl<T> Default for List<T> {
    fn default() -> Self {
        List(None)
    }
}

impl<'de, T: Deserialize<'de>> Lenient<'de> for List<T> {
    fn from_seq<A: SeqAccess<'de>>(mut a: A) -> Result<Self, A::Error> {
        let mut out = Vec::new();
        while let Some(t) = a.next_element::<T>()? {
            out.push(t);
        }
        Ok(List(Some(out)))
    }
}
