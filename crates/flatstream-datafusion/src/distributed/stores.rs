//! Object stores made on first use: a worker learns a table's location only from the plans
//! it receives, so it cannot register the bucket's store beforehand.

use std::sync::Arc;

use datafusion::error::{DataFusionError, Result};
use datafusion::execution::object_store::{DefaultObjectStoreRegistry, ObjectStoreRegistry};
use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};
use object_store::ObjectStore;
use url::Url;

/// An object store registry that makes the store of an `s3://` bucket (feature `aws`) or a
/// `gs://` bucket (feature `gcp`) the first time a plan names it, configured from the
/// environment (`AWS_REGION`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` or an instance
/// role; `GOOGLE_SERVICE_ACCOUNT` or `GOOGLE_APPLICATION_CREDENTIALS`). Local files need
/// nothing: their store is always there.
#[derive(Debug, Default)]
pub struct CloudStores {
    stores: DefaultObjectStoreRegistry,
}

impl CloudStores {
    /// A runtime whose object stores are these: for a worker, and for a coordinator that lists
    /// a bucket's files.
    pub fn runtime() -> Result<Arc<RuntimeEnv>> {
        RuntimeEnvBuilder::new()
            .with_object_store_registry(Arc::new(CloudStores::default()))
            .build_arc()
    }
}

impl ObjectStoreRegistry for CloudStores {
    fn register_store(
        &self,
        url: &Url,
        store: Arc<dyn ObjectStore>,
    ) -> Option<Arc<dyn ObjectStore>> {
        self.stores.register_store(url, store)
    }

    fn deregister_store(&self, url: &Url) -> Result<Arc<dyn ObjectStore>> {
        self.stores.deregister_store(url)
    }

    fn get_store(&self, url: &Url) -> Result<Arc<dyn ObjectStore>> {
        if let Ok(store) = self.stores.get_store(url) {
            return Ok(store);
        }
        let store = from_env(url)?;
        self.stores.register_store(url, Arc::clone(&store));
        Ok(store)
    }
}

/// The store for `url`'s bucket, configured from the environment.
fn from_env(url: &Url) -> Result<Arc<dyn ObjectStore>> {
    let bucket = url.host_str().unwrap_or_default();
    match url.scheme() {
        #[cfg(feature = "aws")]
        "s3" => Ok(Arc::new(
            object_store::aws::AmazonS3Builder::from_env()
                .with_bucket_name(bucket)
                .build()?,
        )),
        #[cfg(feature = "gcp")]
        "gs" => Ok(Arc::new(
            object_store::gcp::GoogleCloudStorageBuilder::from_env()
                .with_bucket_name(bucket)
                .build()?,
        )),
        #[cfg(not(feature = "aws"))]
        "s3" => Err(DataFusionError::Configuration(format!(
            "{url}: reading s3:// (bucket {bucket}) needs the feature `aws`"
        ))),
        #[cfg(not(feature = "gcp"))]
        "gs" => Err(DataFusionError::Configuration(format!(
            "{url}: reading gs:// (bucket {bucket}) needs the feature `gcp`"
        ))),
        scheme => Err(DataFusionError::Configuration(format!(
            "{url}: no object store for the scheme {scheme}://"
        ))),
    }
}
