//! [`FlatstreamFormatFactory`] and [`FlatstreamFormat`]: the file format DataFusion finds by
//! `STORED AS FLATSTREAM` or by a file's extension.

use crate::error::Error;
use crate::options::{FlatstreamOptions, ScanSpec};
use crate::source::FlatstreamSource;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::Session;
use datafusion::common::{GetExt, Result, Statistics};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::{FileFormat, FileFormatFactory};
use datafusion::datasource::physical_plan::{FileScanConfig, FileSource};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::error::DataFusionError;
use datafusion::physical_plan::ExecutionPlan;
use object_store::{ObjectMeta, ObjectStore};
use std::collections::HashMap;
use std::sync::Arc;

/// The names the format is registered under by
/// [`register_flatstream_format`](crate::SessionContextExt::register_flatstream_format):
/// `flatstream` (for `STORED AS FLATSTREAM`), `fstream` (the extension `flatstream` commands
/// and the demo write) and `fs` (a short form). A path read as a table (`SELECT … FROM
/// 'x.fstream'`) is read as flatstream if it ends in `.fstream` or `.fs`; a directory given
/// as a table's location is read for its `.fstream` files (name others with a glob:
/// `'captures/*.fs'`).
pub const EXTENSIONS: [&str; 3] = ["flatstream", "fstream", "fs"];

/// Makes [`FlatstreamFormat`]s, for one extension (its [`GetExt`]), from the session's
/// [`FlatstreamOptions`] overridden by a table's options.
#[derive(Debug, Clone)]
pub struct FlatstreamFormatFactory {
    ext: String,
    options: Option<FlatstreamOptions>,
}

impl FlatstreamFormatFactory {
    /// The factory for files ending in `.ext` (and `STORED AS ext`), reading with the
    /// session's options.
    pub fn new(ext: impl Into<String>) -> Self {
        FlatstreamFormatFactory {
            ext: ext.into(),
            options: None,
        }
    }

    /// The factory reading with `options` instead of the session's (a table's options still
    /// override them).
    pub fn with_options(mut self, options: FlatstreamOptions) -> Self {
        self.options = Some(options);
        self
    }
}

impl GetExt for FlatstreamFormatFactory {
    fn get_ext(&self) -> String {
        self.ext.clone()
    }
}

impl FileFormatFactory for FlatstreamFormatFactory {
    fn create(
        &self,
        state: &dyn Session,
        format_options: &HashMap<String, String>,
    ) -> Result<Arc<dyn FileFormat>> {
        let mut options = match &self.options {
            Some(options) => options.clone(),
            None => state
                .config_options()
                .extensions
                .get::<FlatstreamOptions>()
                .cloned()
                .unwrap_or_default(),
        };
        // An error here is kept in the format and reported where the table's schema is
        // asked for: DataFusion drops the errors of this call for a path read as a table
        // ("table not found"), and the user must learn that the schema is missing.
        let spec = options
            .apply(format_options)
            .and_then(|()| options.resolve())
            .map_err(|e| Arc::new(DataFusionError::from(e)));
        Ok(Arc::new(FlatstreamFormat {
            spec,
            ext: file_ext(&self.ext),
        }))
    }

    /// A format without options: it has no schema, and planning a scan with it fails with
    /// [`Error::NoSchema`].
    fn default(&self) -> Arc<dyn FileFormat> {
        Arc::new(FlatstreamFormat {
            spec: Err(Arc::new(Error::NoSchema.into())),
            ext: file_ext(&self.ext),
        })
    }
}

/// The files' extension for a factory's name: `STORED AS FLATSTREAM` reads `.fstream` files
/// from a directory, as `flatstream` commands write them.
fn file_ext(name: &str) -> String {
    if name.eq_ignore_ascii_case("flatstream") {
        "fstream".to_owned()
    } else {
        name.to_owned()
    }
}

/// The flatstream [`FileFormat`]: its schema is the `.bfbs` schema's root table (never
/// guessed from data), its scans a [`FlatstreamSource`].
///
/// A format whose options were wrong (no schema, say) is still made, and reports the error
/// when the table's schema or a scan is asked for.
#[derive(Debug, Clone)]
pub struct FlatstreamFormat {
    spec: Result<ScanSpec, Arc<DataFusionError>>,
    ext: String,
}

impl FlatstreamFormat {
    /// The format reading with `spec`, for the extension `fstream`.
    pub fn new(spec: ScanSpec) -> Self {
        FlatstreamFormat {
            spec: Ok(spec),
            ext: "fstream".to_owned(),
        }
    }

    /// The same format for files ending in `.ext`.
    pub fn with_ext(mut self, ext: impl Into<String>) -> Self {
        self.ext = ext.into();
        self
    }

    /// What scans read with; `None` for a format whose options were wrong.
    pub fn spec(&self) -> Option<&ScanSpec> {
        self.spec.as_ref().ok()
    }

    fn spec_or_error(&self) -> Result<&ScanSpec> {
        self.spec
            .as_ref()
            .map_err(|e| DataFusionError::Shared(e.clone()))
    }
}

#[async_trait::async_trait]
impl FileFormat for FlatstreamFormat {
    fn get_ext(&self) -> String {
        self.ext.clone()
    }

    fn get_ext_with_compression(&self, compression: &FileCompressionType) -> Result<String> {
        if compression.is_compressed() {
            return Err(Error::Option {
                key: "compression".to_owned(),
                reason: "compressed flatstream files are not supported".to_owned(),
            }
            .into());
        }
        Ok(self.ext.clone())
    }

    fn compression_type(&self) -> Option<FileCompressionType> {
        Some(FileCompressionType::UNCOMPRESSED)
    }

    async fn infer_schema(
        &self,
        _state: &dyn Session,
        _store: &Arc<dyn ObjectStore>,
        _objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        Ok(self.spec_or_error()?.plan().file_schema().clone())
    }

    async fn infer_stats(
        &self,
        _state: &dyn Session,
        _store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        _object: &ObjectMeta,
    ) -> Result<Statistics> {
        Ok(Statistics::new_unknown(&table_schema))
    }

    async fn create_physical_plan(
        &self,
        _state: &dyn Session,
        conf: FileScanConfig,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.spec_or_error()?;
        Ok(DataSourceExec::from_data_source(conf))
    }

    fn file_source(&self, table_schema: TableSchema) -> Arc<dyn FileSource> {
        match &self.spec {
            Ok(spec) => Arc::new(FlatstreamSource::new(table_schema, spec.clone())),
            Err(e) => crate::source::unconfigured(table_schema, e.clone()),
        }
    }
}
