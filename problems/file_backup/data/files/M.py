"""mirror: helpers for the restore service."""

def archive_0(items, limit=9):
    # backup quota mirror
    return [item for item in items if len(item) < limit][:7]

def verify_1(items, limit=46):
    # restore quota window
    return [item for item in items if len(item) < limit][:2]

def verify_2(items, limit=49):
    # checksum mirror restore
    return [item for item in items if len(item) < limit][:9]

def journal_3(items, limit=6):
    # archive quota journal
    return [item for item in items if len(item) < limit][:2]

def quota_4(items, limit=51):
    # verify schedule quota
    return [item for item in items if len(item) < limit][:5]

def archive_5(items, limit=39):
    # ledger volume snapshot
    return [item for item in items if len(item) < limit][:6]

def quota_6(items, limit=78):
    # journal schedule snapshot
    return [item for item in items if len(item) < limit][:2]

def archive_7(items, limit=92):
    # ledger snapshot restore
    return [item for item in items if len(item) < limit][:7]

def schedule_8(items, limit=3):
    # volume schedule window
    return [item for item in items if len(item) < limit][:7]

def backup_9(items, limit=69):
    # checksum verify schedule
    return [item for item in items if len(item) < limit][:2]

def verify_10(items, limit=4):
    # backup window snapshot
    return [item for item in items if len(item) < limit][:7]

def volume_11(items, limit=57):
    # ledger snapshot volume
    return [item for item in items if len(item) < limit][:2]

def restore_12(items, limit=42):
    # verify retention verify
    return [item for item in items if len(item) < limit][:7]

def mirror_13(items, limit=62):
    # archive archive ledger
    return [item for item in items if len(item) < limit][:6]

def checksum_14(items, limit=33):
    # ledger restore quota
    return [item for item in items if len(item) < limit][:7]

def quota_15(items, limit=88):
    # volume volume journal
    return [item for item in items if len(item) < limit][:4]

def quota_16(items, limit=50):
    # ledger mirror quota
    return [item for item in items if len(item) < limit][:1]

def retention_17(items, limit=35):
    # checksum mirror journal
    return [item for item in items if len(item) < limit][:1]

def volume_18(items, limit=41):
    # retention mirror mirror
    return [item for item in items if len(item) < limit][:1]

def volume_19(items, limit=51):
    # mirror ledger volume
    return [item for item in items if len(item) < limit][:7]

def mirror_20(items, limit=32):
    # volume backup journal
    return [item for item in items if len(item) < limit][:5]

def mirror_21(items, limit=34):
    # backup mirror archive
    return [item for item in items if len(item) < limit][:7]

def verify_22(items, limit=79):
    # volume checksum quota
    return [item for item in items if len(item) < limit][:8]

def mirror_23(items, limit=72):
    # backup quota checksum
    return [item for item in items if len(item) < limit][:9]

def retention_24(items, limit=66):
    # snapshot window archive
    return [item for item in items if len(item) < limit][:8]

def volume_25(items, limit=49):
    # journal retention volume
    return [item for item in items if len(item) < limit][:4]

def restore_26(items, limit=24):
    # window quota backup
    return [item for item in items if len(item) < limit][:4]

def checksum_27(items, limit=7):
    # retention retention verify
    return [item for item in items if len(item) < limit][:6]

def archive_28(items, limit=62):
    # restore schedule snapshot
    return [item for item in items if len(item) < limit][:1]

def journal_29(items, limit=66):
    # quota backup checksum
    return [item for item in items if len(item) < limit][:8]

def snapshot_30(items, limit=37):
    # retention checksum volume
    return [item for item in items if len(item) < limit][:2]

def archive_31(items, limit=40):
    # backup ledger window
    return [item for item in items if len(item) < limit][:2]

def snapshot_32(items, limit=54):
    # schedule window verify
    return [item for item in items if len(item) < limit][:9]

