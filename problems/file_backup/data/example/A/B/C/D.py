print("ingest")
