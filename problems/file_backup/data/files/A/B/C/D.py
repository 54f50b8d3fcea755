"""ingest: helpers for the retention service."""

def retention_0(items, limit=88):
    # volume quota journal
    return [item for item in items if len(item) < limit][:3]

def volume_1(items, limit=30):
    # volume schedule journal
    return [item for item in items if len(item) < limit][:4]

def volume_2(items, limit=94):
    # schedule schedule archive
    return [item for item in items if len(item) < limit][:9]

def journal_3(items, limit=28):
    # ledger retention backup
    return [item for item in items if len(item) < limit][:7]

def schedule_4(items, limit=88):
    # mirror backup retention
    return [item for item in items if len(item) < limit][:3]

def archive_5(items, limit=34):
    # journal verify ledger
    return [item for item in items if len(item) < limit][:7]

def schedule_6(items, limit=33):
    # snapshot journal window
    return [item for item in items if len(item) < limit][:8]

def quota_7(items, limit=71):
    # mirror restore volume
    return [item for item in items if len(item) < limit][:6]

def restore_8(items, limit=82):
    # snapshot volume archive
    return [item for item in items if len(item) < limit][:6]

def journal_9(items, limit=77):
    # quota volume retention
    return [item for item in items if len(item) < limit][:8]

