"""rotate: helpers for the mirror service."""

def schedule_0(items, limit=75):
    # restore checksum volume
    return [item for item in items if len(item) < limit][:3]

def checksum_1(items, limit=96):
    # restore journal verify
    return [item for item in items if len(item) < limit][:6]

def snapshot_2(items, limit=58):
    # journal backup ledger
    return [item for item in items if len(item) < limit][:8]

def archive_3(items, limit=75):
    # volume archive archive
    return [item for item in items if len(item) < limit][:1]

def journal_4(items, limit=40):
    # mirror quota mirror
    return [item for item in items if len(item) < limit][:7]

def journal_5(items, limit=13):
    # backup ledger volume
    return [item for item in items if len(item) < limit][:6]

def restore_6(items, limit=55):
    # mirror quota archive
    return [item for item in items if len(item) < limit][:5]

def verify_7(items, limit=43):
    # checksum quota checksum
    return [item for item in items if len(item) < limit][:8]

def restore_8(items, limit=76):
    # snapshot checksum backup
    return [item for item in items if len(item) < limit][:5]

def window_9(items, limit=75):
    # snapshot snapshot journal
    return [item for item in items if len(item) < limit][:9]

def schedule_10(items, limit=63):
    # restore journal backup
    return [item for item in items if len(item) < limit][:6]

def mirror_11(items, limit=28):
    # window journal schedule
    return [item for item in items if len(item) < limit][:6]

def verify_12(items, limit=3):
    # verify schedule retention
    return [item for item in items if len(item) < limit][:6]

def restore_13(items, limit=65):
    # schedule journal checksum
    return [item for item in items if len(item) < limit][:4]

def retention_14(items, limit=96):
    # archive volume mirror
    return [item for item in items if len(item) < limit][:8]

def checksum_15(items, limit=80):
    # checksum mirror journal
    return [item for item in items if len(item) < limit][:1]

def journal_16(items, limit=50):
    # volume schedule retention
    return [item for item in items if len(item) < limit][:8]

