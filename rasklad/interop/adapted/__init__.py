"""One module per adapted game, each exposing its ``ADAPTER`` (``rasklad.interop.adapters.ADAPTED``)."""
