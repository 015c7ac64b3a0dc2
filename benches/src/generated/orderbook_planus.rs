pub use root::*;

const _: () = ::planus::check_version_compatibility("planus-1.3.0");

/// The root namespace
///
/// Generated from these locations:
/// * File `benches/schemas/orderbook.fbs`
#[no_implicit_prelude]
#[allow(clippy::needless_lifetimes)]
mod root {
    /// The namespace `orderbook`
    ///
    /// Generated from these locations:
    /// * File `benches/schemas/orderbook.fbs`
    pub mod orderbook {
        ///  One price level: a price in ticks and the quantity resting at it.
        ///
        /// Generated from these locations:
        /// * Struct `Level` in the file `benches/schemas/orderbook.fbs:14`
        #[derive(
            Copy,
            Clone,
            Debug,
            PartialEq,
            PartialOrd,
            Eq,
            Ord,
            Hash,
            Default,
            ::serde::Serialize,
            ::serde::Deserialize,
        )]
        pub struct Level {
            /// The field `price` in the struct `Level`
            pub price: i64,

            /// The field `size` in the struct `Level`
            pub size: u64,
        }

        /// # Safety
        /// The Planus compiler correctly calculates `ALIGNMENT` and `SIZE`.
        unsafe impl ::planus::Primitive for Level {
            const ALIGNMENT: usize = 8;
            const SIZE: usize = 16;
        }

        #[allow(clippy::identity_op)]
        impl ::planus::WriteAsPrimitive<Level> for Level {
            #[inline]
            fn write<const N: usize>(&self, cursor: ::planus::Cursor<'_, N>, buffer_position: u32) {
                let (cur, cursor) = cursor.split::<8, 8>();
                self.price.write(cur, buffer_position - 0);
                let (cur, cursor) = cursor.split::<8, 0>();
                self.size.write(cur, buffer_position - 8);
                cursor.finish([]);
            }
        }

        impl ::planus::WriteAsOffset<Level> for Level {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Level> {
                unsafe {
                    builder.write_with(16, 7, |buffer_position, bytes| {
                        let bytes = bytes.as_mut_ptr();

                        ::planus::WriteAsPrimitive::write(
                            self,
                            ::planus::Cursor::new(
                                &mut *(bytes as *mut [::core::mem::MaybeUninit<u8>; 16]),
                            ),
                            buffer_position,
                        );
                    });
                }
                builder.current_offset()
            }
        }

        impl ::planus::WriteAs<Level> for Level {
            type Prepared = Self;
            #[inline]
            fn prepare(&self, _builder: &mut ::planus::Builder) -> Self {
                *self
            }
        }

        impl ::planus::WriteAsOptional<Level> for Level {
            type Prepared = Self;
            #[inline]
            fn prepare(&self, _builder: &mut ::planus::Builder) -> ::core::option::Option<Self> {
                ::core::option::Option::Some(*self)
            }
        }

        /// Reference to a deserialized [Level].
        #[derive(Copy, Clone)]
        pub struct LevelRef<'a>(::planus::ArrayWithStartOffset<'a, 16>);

        impl<'a> LevelRef<'a> {
            /// Getter for the [`price` field](Level#structfield.price).
            pub fn price(&self) -> i64 {
                let buffer = self.0.advance_as_array::<8>(0).unwrap();

                i64::from_le_bytes(*buffer.as_array())
            }

            /// Getter for the [`size` field](Level#structfield.size).
            pub fn size(&self) -> u64 {
                let buffer = self.0.advance_as_array::<8>(8).unwrap();

                u64::from_le_bytes(*buffer.as_array())
            }
        }

        impl<'a> ::core::fmt::Debug for LevelRef<'a> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                let mut f = f.debug_struct("LevelRef");
                f.field("price", &self.price());
                f.field("size", &self.size());
                f.finish()
            }
        }

        impl<'a> ::core::convert::From<::planus::ArrayWithStartOffset<'a, 16>> for LevelRef<'a> {
            fn from(array: ::planus::ArrayWithStartOffset<'a, 16>) -> Self {
                Self(array)
            }
        }

        impl<'a> ::core::convert::From<LevelRef<'a>> for Level {
            #[allow(unreachable_code)]
            fn from(value: LevelRef<'a>) -> Self {
                Self {
                    price: value.price(),
                    size: value.size(),
                }
            }
        }

        impl<'a, 'b> ::core::cmp::PartialEq<LevelRef<'a>> for LevelRef<'b> {
            fn eq(&self, other: &LevelRef<'_>) -> bool {
                self.price() == other.price() && self.size() == other.size()
            }
        }

        impl<'a> ::core::cmp::Eq for LevelRef<'a> {}
        impl<'a, 'b> ::core::cmp::PartialOrd<LevelRef<'a>> for LevelRef<'b> {
            fn partial_cmp(
                &self,
                other: &LevelRef<'_>,
            ) -> ::core::option::Option<::core::cmp::Ordering> {
                ::core::option::Option::Some(::core::cmp::Ord::cmp(self, other))
            }
        }

        impl<'a> ::core::cmp::Ord for LevelRef<'a> {
            fn cmp(&self, other: &LevelRef<'_>) -> ::core::cmp::Ordering {
                self.price()
                    .cmp(&other.price())
                    .then_with(|| self.size().cmp(&other.size()))
            }
        }

        impl<'a> ::core::hash::Hash for LevelRef<'a> {
            fn hash<H: ::core::hash::Hasher>(&self, state: &mut H) {
                self.price().hash(state);
                self.size().hash(state);
            }
        }

        impl<'a> ::planus::TableRead<'a> for LevelRef<'a> {
            #[inline]
            fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
                let buffer = buffer.advance_as_array::<16>(offset)?;
                ::core::result::Result::Ok(Self(buffer))
            }
        }

        impl<'a> ::planus::VectorRead<'a> for LevelRef<'a> {
            const STRIDE: usize = 16;

            #[inline]
            unsafe fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> Self {
                Self(unsafe { buffer.unchecked_advance_as_array(offset) })
            }
        }

        /// # Safety
        /// The planus compiler generates implementations that initialize
        /// the bytes in `write_values`.
        unsafe impl ::planus::VectorWrite<Level> for Level {
            const STRIDE: usize = 16;

            type Value = Level;

            #[inline]
            fn prepare(&self, _builder: &mut ::planus::Builder) -> Self::Value {
                *self
            }

            #[inline]
            unsafe fn write_values(
                values: &[Level],
                bytes: *mut ::core::mem::MaybeUninit<u8>,
                buffer_position: u32,
            ) {
                let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 16];
                for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                    ::planus::WriteAsPrimitive::write(
                        v,
                        ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                        buffer_position - (16 * i) as u32,
                    );
                }
            }
        }

        ///  The ten best levels of each side of one instrument's book.
        ///
        /// Generated from these locations:
        /// * Table `OrderBook` in the file `benches/schemas/orderbook.fbs:20`
        #[derive(
            Clone,
            Debug,
            PartialEq,
            PartialOrd,
            Eq,
            Ord,
            Hash,
            ::serde::Serialize,
            ::serde::Deserialize,
        )]
        pub struct OrderBook {
            ///  Exchange time, nanoseconds since the Unix epoch.
            pub timestamp: u64,
            ///  The feed's sequence number.
            pub sequence: u64,
            ///  The instrument's symbol.
            pub instrument: ::planus::alloc::string::String,
            ///  Bids, best (highest) first.
            pub bids: ::planus::alloc::vec::Vec<self::Level>,
            ///  Asks, best (lowest) first.
            pub asks: ::planus::alloc::vec::Vec<self::Level>,
        }

        #[allow(clippy::derivable_impls)]
        impl ::core::default::Default for OrderBook {
            fn default() -> Self {
                Self {
                    timestamp: 0,
                    sequence: 0,
                    instrument: ::core::default::Default::default(),
                    bids: ::core::default::Default::default(),
                    asks: ::core::default::Default::default(),
                }
            }
        }

        impl OrderBook {
            /// Creates a [OrderBookBuilder] for serializing an instance of this table.
            #[inline]
            pub fn builder() -> OrderBookBuilder<()> {
                OrderBookBuilder(())
            }

            #[allow(clippy::too_many_arguments)]
            pub fn create(
                builder: &mut ::planus::Builder,
                field_timestamp: impl ::planus::WriteAsDefault<u64, u64>,
                field_sequence: impl ::planus::WriteAsDefault<u64, u64>,
                field_instrument: impl ::planus::WriteAs<::planus::Offset<str>>,
                field_bids: impl ::planus::WriteAs<::planus::Offset<[self::Level]>>,
                field_asks: impl ::planus::WriteAs<::planus::Offset<[self::Level]>>,
            ) -> ::planus::Offset<Self> {
                let prepared_timestamp = field_timestamp.prepare(builder, &0);
                let prepared_sequence = field_sequence.prepare(builder, &0);
                let prepared_instrument = field_instrument.prepare(builder);
                let prepared_bids = field_bids.prepare(builder);
                let prepared_asks = field_asks.prepare(builder);

                let mut table_writer: ::planus::table_writer::TableWriter<14> =
                    ::core::default::Default::default();
                if prepared_timestamp.is_some() {
                    table_writer.write_entry::<u64>(0);
                }
                if prepared_sequence.is_some() {
                    table_writer.write_entry::<u64>(1);
                }
                table_writer.write_entry::<::planus::Offset<str>>(2);
                table_writer.write_entry::<::planus::Offset<[self::Level]>>(3);
                table_writer.write_entry::<::planus::Offset<[self::Level]>>(4);

                unsafe {
                    table_writer.finish(builder, |object_writer| {
                        if let ::core::option::Option::Some(prepared_timestamp) = prepared_timestamp
                        {
                            object_writer.write::<_, _, 8>(&prepared_timestamp);
                        }
                        if let ::core::option::Option::Some(prepared_sequence) = prepared_sequence {
                            object_writer.write::<_, _, 8>(&prepared_sequence);
                        }
                        object_writer.write::<_, _, 4>(&prepared_instrument);
                        object_writer.write::<_, _, 4>(&prepared_bids);
                        object_writer.write::<_, _, 4>(&prepared_asks);
                    });
                }
                builder.current_offset()
            }
        }

        impl ::planus::WriteAs<::planus::Offset<OrderBook>> for OrderBook {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<OrderBook> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl ::planus::WriteAsOptional<::planus::Offset<OrderBook>> for OrderBook {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<OrderBook>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl ::planus::WriteAsOffset<OrderBook> for OrderBook {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<OrderBook> {
                OrderBook::create(
                    builder,
                    self.timestamp,
                    self.sequence,
                    &self.instrument,
                    &self.bids,
                    &self.asks,
                )
            }
        }

        /// Builder for serializing an instance of the [OrderBook] type.
        ///
        /// Can be created using the [OrderBook::builder] method.
        #[derive(Debug)]
        #[must_use]
        pub struct OrderBookBuilder<State>(State);

        impl OrderBookBuilder<()> {
            /// Setter for the [`timestamp` field](OrderBook#structfield.timestamp).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn timestamp<T0>(self, value: T0) -> OrderBookBuilder<(T0,)>
            where
                T0: ::planus::WriteAsDefault<u64, u64>,
            {
                OrderBookBuilder((value,))
            }

            /// Sets the [`timestamp` field](OrderBook#structfield.timestamp) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn timestamp_as_default(self) -> OrderBookBuilder<(::planus::DefaultValue,)> {
                self.timestamp(::planus::DefaultValue)
            }
        }

        impl<T0> OrderBookBuilder<(T0,)> {
            /// Setter for the [`sequence` field](OrderBook#structfield.sequence).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn sequence<T1>(self, value: T1) -> OrderBookBuilder<(T0, T1)>
            where
                T1: ::planus::WriteAsDefault<u64, u64>,
            {
                let (v0,) = self.0;
                OrderBookBuilder((v0, value))
            }

            /// Sets the [`sequence` field](OrderBook#structfield.sequence) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn sequence_as_default(self) -> OrderBookBuilder<(T0, ::planus::DefaultValue)> {
                self.sequence(::planus::DefaultValue)
            }
        }

        impl<T0, T1> OrderBookBuilder<(T0, T1)> {
            /// Setter for the [`instrument` field](OrderBook#structfield.instrument).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn instrument<T2>(self, value: T2) -> OrderBookBuilder<(T0, T1, T2)>
            where
                T2: ::planus::WriteAs<::planus::Offset<str>>,
            {
                let (v0, v1) = self.0;
                OrderBookBuilder((v0, v1, value))
            }
        }

        impl<T0, T1, T2> OrderBookBuilder<(T0, T1, T2)> {
            /// Setter for the [`bids` field](OrderBook#structfield.bids).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn bids<T3>(self, value: T3) -> OrderBookBuilder<(T0, T1, T2, T3)>
            where
                T3: ::planus::WriteAs<::planus::Offset<[self::Level]>>,
            {
                let (v0, v1, v2) = self.0;
                OrderBookBuilder((v0, v1, v2, value))
            }
        }

        impl<T0, T1, T2, T3> OrderBookBuilder<(T0, T1, T2, T3)> {
            /// Setter for the [`asks` field](OrderBook#structfield.asks).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn asks<T4>(self, value: T4) -> OrderBookBuilder<(T0, T1, T2, T3, T4)>
            where
                T4: ::planus::WriteAs<::planus::Offset<[self::Level]>>,
            {
                let (v0, v1, v2, v3) = self.0;
                OrderBookBuilder((v0, v1, v2, v3, value))
            }
        }

        impl<T0, T1, T2, T3, T4> OrderBookBuilder<(T0, T1, T2, T3, T4)> {
            /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [OrderBook].
            #[inline]
            pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<OrderBook>
            where
                Self: ::planus::WriteAsOffset<OrderBook>,
            {
                ::planus::WriteAsOffset::prepare(&self, builder)
            }
        }

        impl<
            T0: ::planus::WriteAsDefault<u64, u64>,
            T1: ::planus::WriteAsDefault<u64, u64>,
            T2: ::planus::WriteAs<::planus::Offset<str>>,
            T3: ::planus::WriteAs<::planus::Offset<[self::Level]>>,
            T4: ::planus::WriteAs<::planus::Offset<[self::Level]>>,
        > ::planus::WriteAs<::planus::Offset<OrderBook>>
            for OrderBookBuilder<(T0, T1, T2, T3, T4)>
        {
            type Prepared = ::planus::Offset<OrderBook>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<OrderBook> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl<
            T0: ::planus::WriteAsDefault<u64, u64>,
            T1: ::planus::WriteAsDefault<u64, u64>,
            T2: ::planus::WriteAs<::planus::Offset<str>>,
            T3: ::planus::WriteAs<::planus::Offset<[self::Level]>>,
            T4: ::planus::WriteAs<::planus::Offset<[self::Level]>>,
        > ::planus::WriteAsOptional<::planus::Offset<OrderBook>>
            for OrderBookBuilder<(T0, T1, T2, T3, T4)>
        {
            type Prepared = ::planus::Offset<OrderBook>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<OrderBook>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl<
            T0: ::planus::WriteAsDefault<u64, u64>,
            T1: ::planus::WriteAsDefault<u64, u64>,
            T2: ::planus::WriteAs<::planus::Offset<str>>,
            T3: ::planus::WriteAs<::planus::Offset<[self::Level]>>,
            T4: ::planus::WriteAs<::planus::Offset<[self::Level]>>,
        > ::planus::WriteAsOffset<OrderBook> for OrderBookBuilder<(T0, T1, T2, T3, T4)>
        {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<OrderBook> {
                let (v0, v1, v2, v3, v4) = &self.0;
                OrderBook::create(builder, v0, v1, v2, v3, v4)
            }
        }

        /// Reference to a deserialized [OrderBook].
        #[derive(Copy, Clone)]
        pub struct OrderBookRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

        impl<'a> OrderBookRef<'a> {
            /// Getter for the [`timestamp` field](OrderBook#structfield.timestamp).
            #[inline]
            pub fn timestamp(&self) -> ::planus::Result<u64> {
                ::core::result::Result::Ok(self.0.access(0, "OrderBook", "timestamp")?.unwrap_or(0))
            }

            /// Getter for the [`sequence` field](OrderBook#structfield.sequence).
            #[inline]
            pub fn sequence(&self) -> ::planus::Result<u64> {
                ::core::result::Result::Ok(self.0.access(1, "OrderBook", "sequence")?.unwrap_or(0))
            }

            /// Getter for the [`instrument` field](OrderBook#structfield.instrument).
            #[inline]
            pub fn instrument(&self) -> ::planus::Result<&'a ::core::primitive::str> {
                self.0.access_required(2, "OrderBook", "instrument")
            }

            /// Getter for the [`bids` field](OrderBook#structfield.bids).
            #[inline]
            pub fn bids(&self) -> ::planus::Result<::planus::Vector<'a, self::LevelRef<'a>>> {
                self.0.access_required(3, "OrderBook", "bids")
            }

            /// Getter for the [`asks` field](OrderBook#structfield.asks).
            #[inline]
            pub fn asks(&self) -> ::planus::Result<::planus::Vector<'a, self::LevelRef<'a>>> {
                self.0.access_required(4, "OrderBook", "asks")
            }
        }

        impl<'a> ::core::fmt::Debug for OrderBookRef<'a> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                let mut f = f.debug_struct("OrderBookRef");
                f.field("timestamp", &self.timestamp());
                f.field("sequence", &self.sequence());
                f.field("instrument", &self.instrument());
                f.field("bids", &self.bids());
                f.field("asks", &self.asks());
                f.finish()
            }
        }

        impl<'a> ::core::convert::TryFrom<OrderBookRef<'a>> for OrderBook {
            type Error = ::planus::Error;

            #[allow(unreachable_code)]
            fn try_from(value: OrderBookRef<'a>) -> ::planus::Result<Self> {
                ::core::result::Result::Ok(Self {
                    timestamp: ::core::convert::TryInto::try_into(value.timestamp()?)?,
                    sequence: ::core::convert::TryInto::try_into(value.sequence()?)?,
                    instrument: ::core::convert::Into::into(value.instrument()?),
                    bids: value.bids()?.to_vec()?,
                    asks: value.asks()?.to_vec()?,
                })
            }
        }

        impl<'a> ::planus::TableRead<'a> for OrderBookRef<'a> {
            #[inline]
            fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
                ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                    buffer, offset,
                )?))
            }
        }

        impl<'a> ::planus::VectorReadInner<'a> for OrderBookRef<'a> {
            type Error = ::planus::Error;
            const STRIDE: usize = 4;

            unsafe fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                    error_kind.with_error_location(
                        "[OrderBookRef]",
                        "get",
                        buffer.offset_from_start,
                    )
                })
            }
        }

        /// # Safety
        /// The planus compiler generates implementations that initialize
        /// the bytes in `write_values`.
        unsafe impl ::planus::VectorWrite<::planus::Offset<OrderBook>> for OrderBook {
            type Value = ::planus::Offset<OrderBook>;
            const STRIDE: usize = 4;
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
                ::planus::WriteAs::prepare(self, builder)
            }

            #[inline]
            unsafe fn write_values(
                values: &[::planus::Offset<OrderBook>],
                bytes: *mut ::core::mem::MaybeUninit<u8>,
                buffer_position: u32,
            ) {
                let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
                for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                    ::planus::WriteAsPrimitive::write(
                        v,
                        ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                        buffer_position - (Self::STRIDE * i) as u32,
                    );
                }
            }
        }

        impl<'a> ::planus::ReadAsRoot<'a> for OrderBookRef<'a> {
            fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(
                    ::planus::SliceWithStartOffset {
                        buffer: slice,
                        offset_from_start: 0,
                    },
                    0,
                )
                .map_err(|error_kind| {
                    error_kind.with_error_location("[OrderBookRef]", "read_as_root", 0)
                })
            }
        }
    }
}
