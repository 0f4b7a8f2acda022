//! A serde `Serializer` that writes compact JSON and its escaped copy ([`Dual`]) in one pass.
//!
//! The bytes are exactly those `serde_json::to_string` writes for the same value (the tests
//! compare them on awkward values), so every wire type is written by its `derive(Serialize)`
//! alone. It is faster than serde_json where a page of records spends its time: a string that
//! needs no escaping (nearly all of them) is copied in one piece instead of going through a
//! per-character escaper, and the escaped copy is written alongside.

use std::fmt::{self, Display, Write as _};

use serde::Serialize;
use serde::ser;

use super::escape::Dual;
use super::map_key::MapKey;

/// A value serde could not write as JSON (a map key that is not a string or a number).
#[derive(Debug)]
pub struct Error(pub(super) String);

impl Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

/// Appends `value` to `out`.
pub fn write<T: Serialize + ?Sized>(value: &T, out: &mut Dual) -> Result<(), Error> {
    value.serialize(&mut Writer { out })
}

struct Writer<'a> {
    out: &'a mut Dual,
}

impl Writer<'_> {
    /// Integers and other text without quotes, formatted straight into both copies.
    fn display(&mut self, v: impl Display) -> Result<(), Error> {
        let (plain, quoted) = (&mut self.out.plain, &mut self.out.quoted);
        let start = plain.len();
        write!(plain, "{v}").map_err(|e| Error(e.to_string()))?;
        quoted.push_str(plain.get(start..).unwrap_or_default());
        Ok(())
    }

    /// Floats as serde_json writes them (its shortest round-trip form; not finite is null).
    fn float(&mut self, json: serde_json::Result<String>) -> Result<(), Error> {
        let json = json.map_err(|e| Error(e.to_string()))?;
        self.out.push_plain(&json);
        Ok(())
    }

    #[inline(always)]
    fn open(&mut self, text: &'static str, close: &'static str) -> Compound<'_> {
        self.out.push_plain(text);
        Compound {
            w: Writer {
                out: &mut *self.out,
            },
            first: true,
            close,
        }
    }

    /// `{"variant":` for the externally tagged enum variants serde_json writes.
    fn open_variant(&mut self, variant: &str) {
        self.out.push_plain("{");
        self.out.push_str(variant);
        self.out.push_plain(":");
    }
}

/// An array, object or variant being written.
pub struct Compound<'a> {
    w: Writer<'a>,
    first: bool,
    close: &'static str,
}

impl Compound<'_> {
    #[inline(always)]
    fn comma(&mut self) {
        if !self.first {
            self.w.out.push_plain(",");
        }
        self.first = false;
    }

    #[inline(always)]
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.comma();
        value.serialize(&mut self.w)
    }

    #[inline(always)]
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.w.out.push_field_key(!self.first, key);
        self.first = false;
        value.serialize(&mut self.w)
    }

    fn finish(self) -> Result<(), Error> {
        self.w.out.push_plain(self.close);
        Ok(())
    }
}

impl<'a, 'b> ser::Serializer for &'b mut Writer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'b>;
    type SerializeTuple = Compound<'b>;
    type SerializeTupleStruct = Compound<'b>;
    type SerializeTupleVariant = Compound<'b>;
    type SerializeMap = Compound<'b>;
    type SerializeStruct = Compound<'b>;
    type SerializeStructVariant = Compound<'b>;

    #[inline(always)]
    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.out.push_plain(if v { "true" } else { "false" });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        self.display(v)
    }
    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        self.display(v)
    }
    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        self.display(v)
    }
    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        self.display(v)
    }
    fn serialize_i128(self, v: i128) -> Result<(), Error> {
        self.display(v)
    }
    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        self.display(v)
    }
    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        self.display(v)
    }
    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        self.display(v)
    }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        self.display(v)
    }
    fn serialize_u128(self, v: u128) -> Result<(), Error> {
        self.display(v)
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        self.float(serde_json::to_string(&v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        self.float(serde_json::to_string(&v))
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.out.push_str(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    #[inline(always)]
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.out.push_str(v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        let mut seq = self.open("[", "]");
        for b in v {
            ser::SerializeSeq::serialize_element(&mut seq, b)?;
        }
        seq.finish()
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }
    #[inline(always)]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.out.push_plain("null");
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }
    #[inline(always)]
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.open_variant(variant);
        value.serialize(&mut *self)?;
        self.out.push_plain("}");
        Ok(())
    }
    #[inline(always)]
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'b>, Error> {
        Ok(self.open("[", "]"))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Compound<'b>, Error> {
        Ok(self.open("[", "]"))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Compound<'b>, Error> {
        Ok(self.open("[", "]"))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'b>, Error> {
        self.open_variant(variant);
        Ok(self.open("[", "]}"))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'b>, Error> {
        Ok(self.open("{", "}"))
    }
    #[inline(always)]
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Compound<'b>, Error> {
        Ok(self.open("{", "}"))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'b>, Error> {
        self.open_variant(variant);
        Ok(self.open("{", "}}"))
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = Error;
    #[inline(always)]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    #[inline(always)]
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = Error;
    #[inline(always)]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    #[inline(always)]
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeTupleStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    #[inline(always)]
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeTupleVariant for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    #[inline(always)]
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.comma();
        key.serialize(MapKey::new(&mut *self.w.out))?;
        self.w.out.push_plain(":");
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(&mut self.w)
    }
    #[inline(always)]
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;
    #[inline(always)]
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.field(key, value)
    }
    #[inline(always)]
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = Error;
    #[inline(always)]
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.field(key, value)
    }
    #[inline(always)]
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Serialize;
    use serde_json::json;

    use super::*;
    use crate::wire::escape::tests::{assert_quoted_matches, awkward_strings};

    fn assert_like_serde_json<T: Serialize>(value: &T) {
        let mut out = Dual::default();
        write(value, &mut out).unwrap();
        assert_eq!(out.plain, serde_json::to_string(value).unwrap());
        assert_quoted_matches(&out);
    }

    #[derive(Serialize)]
    enum Shape {
        Unit,
        New(u8),
        Tuple(i32, String),
        Struct { a: Option<bool>, b: f64 },
    }

    #[derive(Serialize)]
    struct Every<'a> {
        s: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<u8>,
        none: Option<u8>,
        #[serde(rename = "re\"named")]
        renamed: char,
        ints: (i8, i16, i32, i64, i128, u8, u16, u32, u64, u128),
        floats: Vec<f64>,
        f32s: Vec<f32>,
        shapes: Vec<Shape>,
        unit: (),
        bytes: &'a [u8],
        map: BTreeMap<u32, &'a str>,
        bool_keys: BTreeMap<bool, u8>,
        value: serde_json::Value,
    }

    #[test]
    fn write_gives_the_bytes_serde_json_writes_for_every_kind_of_value() {
        let strings = awkward_strings();
        for (i, s) in strings.iter().enumerate() {
            let every = Every {
                s,
                skipped: None,
                none: None,
                renamed: s.chars().next().unwrap_or('"'),
                ints: (
                    i8::MIN,
                    -1,
                    i as i32,
                    i64::MAX,
                    i128::MIN,
                    u8::MAX,
                    0,
                    7,
                    u64::MAX,
                    u128::MAX,
                ),
                floats: vec![
                    0.0,
                    -0.0,
                    1.5,
                    1e20,
                    1e-7,
                    f64::NAN,
                    f64::INFINITY,
                    1.0 / 3.0,
                ],
                f32s: vec![0.1, f32::MAX],
                shapes: vec![
                    Shape::Unit,
                    Shape::New(3),
                    Shape::Tuple(-4, s.clone()),
                    Shape::Struct {
                        a: Some(true),
                        b: 2.0,
                    },
                ],
                unit: (),
                bytes: s.as_bytes(),
                map: BTreeMap::from([(1, s.as_str()), (20, "x")]),
                bool_keys: BTreeMap::from([(false, 0), (true, 1)]),
                value: json!({"k": [s, null, 1.25, {"": s}], s.clone(): i}),
            };
            assert_like_serde_json(&every);
        }
    }

    #[test]
    fn write_refuses_a_key_serde_json_refuses() {
        let map = BTreeMap::from([(vec![1u8], 1)]);
        assert!(write(&map, &mut Dual::default()).is_err());
        assert!(serde_json::to_string(&map).is_err());
    }
}
