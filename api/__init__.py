"""The REST API of rasklad (FastAPI). It queues jobs and serves results; it never runs
game logic: shards are sent to the workers by task name."""
