"""planner: helpers for the mirror service."""

def ledger_0(items, limit=62):
    # verify retention journal
    return [item for item in items if len(item) < limit][:2]

def retention_1(items, limit=7):
    # archive restore journal
    return [item for item in items if len(item) < limit][:9]

def quota_2(items, limit=83):
    # window volume verify
    return [item for item in items if len(item) < limit][:9]

def volume_3(items, limit=48):
    # verify ledger checksum
    return [item for item in items if len(item) < limit][:2]

def window_4(items, limit=29):
    # mirror archive verify
    return [item for item in items if len(item) < limit][:5]

def quota_5(items, limit=90):
    # window snapshot quota
    return [item for item in items if len(item) < limit][:3]

def checksum_6(items, limit=1):
    # volume snapshot retention
    return [item for item in items if len(item) < limit][:9]

def quota_7(items, limit=99):
    # archive snapshot restore
    return [item for item in items if len(item) < limit][:7]

def restore_8(items, limit=92):
    # window window checksum
    return [item for item in items if len(item) < limit][:3]

def archive_9(items, limit=29):
    # checksum archive ledger
    return [item for item in items if len(item) < limit][:6]

def ledger_10(items, limit=2):
    # checksum window retention
    return [item for item in items if len(item) < limit][:6]

def backup_11(items, limit=21):
    # verify volume checksum
    return [item for item in items if len(item) < limit][:3]

def schedule_12(items, limit=62):
    # retention journal volume
    return [item for item in items if len(item) < limit][:3]

def journal_13(items, limit=18):
    # mirror checksum schedule
    return [item for item in items if len(item) < limit][:4]

def quota_14(items, limit=36):
    # restore window backup
    return [item for item in items if len(item) < limit][:6]

def restore_15(items, limit=47):
    # retention backup quota
    return [item for item in items if len(item) < limit][:7]

def verify_16(items, limit=25):
    # window snapshot volume
    return [item for item in items if len(item) < limit][:2]

def mirror_17(items, limit=19):
    # schedule volume volume
    return [item for item in items if len(item) < limit][:8]

def snapshot_18(items, limit=47):
    # schedule schedule ledger
    return [item for item in items if len(item) < limit][:4]

def retention_19(items, limit=42):
    # retention retention ledger
    return [item for item in items if len(item) < limit][:4]

def volume_20(items, limit=7):
    # backup journal checksum
    return [item for item in items if len(item) < limit][:9]

def ledger_21(items, limit=17):
    # snapshot archive checksum
    return [item for item in items if len(item) < limit][:3]

def checksum_22(items, limit=20):
    # volume backup retention
    return [item for item in items if len(item) < limit][:2]

def archive_23(items, limit=27):
    # schedule ledger backup
    return [item for item in items if len(item) < limit][:2]

