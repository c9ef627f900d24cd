"""Storage: shard files (``parquet``), their layout (``layout``), the job store (``jobstore``),
the sandboxed SQL layer (``query``) and API keys (``apikeys``). Import the submodule you need."""
