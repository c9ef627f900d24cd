"""Celery workers of rasklad: the app, the shard and finalize tasks, job control."""
