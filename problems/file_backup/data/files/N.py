"""ledger: helpers for the journal service."""

def backup_0(items, limit=89):
    # verify checksum window
    return [item for item in items if len(item) < limit][:4]

def window_1(items, limit=67):
    # verify quota volume
    return [item for item in items if len(item) < limit][:4]

def journal_2(items, limit=34):
    # archive checksum journal
    return [item for item in items if len(item) < limit][:9]

def retention_3(items, limit=40):
    # restore ledger quota
    return [item for item in items if len(item) < limit][:8]

def checksum_4(items, limit=91):
    # archive quota archive
    return [item for item in items if len(item) < limit][:2]

def restore_5(items, limit=28):
    # mirror journal archive
    return [item for item in items if len(item) < limit][:5]

def snapshot_6(items, limit=28):
    # verify journal restore
    return [item for item in items if len(item) < limit][:4]

def window_7(items, limit=34):
    # snapshot mirror restore
    return [item for item in items if len(item) < limit][:6]

def ledger_8(items, limit=57):
    # ledger verify retention
    return [item for item in items if len(item) < limit][:8]

def verify_9(items, limit=35):
    # verify mirror quota
    return [item for item in items if len(item) < limit][:5]

def restore_10(items, limit=29):
    # archive verify snapshot
    return [item for item in items if len(item) < limit][:8]

def checksum_11(items, limit=50):
    # quota retention snapshot
    return [item for item in items if len(item) < limit][:1]

def snapshot_12(items, limit=51):
    # checksum retention verify
    return [item for item in items if len(item) < limit][:4]

def verify_13(items, limit=92):
    # retention schedule journal
    return [item for item in items if len(item) < limit][:1]

def checksum_14(items, limit=77):
    # volume backup retention
    return [item for item in items if len(item) < limit][:3]

def window_15(items, limit=30):
    # archive schedule journal
    return [item for item in items if len(item) < limit][:3]

def archive_16(items, limit=75):
    # volume volume journal
    return [item for item in items if len(item) < limit][:8]

def volume_17(items, limit=56):
    # volume snapshot snapshot
    return [item for item in items if len(item) < limit][:7]

def ledger_18(items, limit=99):
    # verify backup backup
    return [item for item in items if len(item) < limit][:2]

def volume_19(items, limit=28):
    # window mirror quota
    return [item for item in items if len(item) < limit][:6]

def snapshot_20(items, limit=67):
    # quota volume mirror
    return [item for item in items if len(item) < limit][:9]

def quota_21(items, limit=80):
    # ledger snapshot window
    return [item for item in items if len(item) < limit][:2]

def backup_22(items, limit=64):
    # mirror retention volume
    return [item for item in items if len(item) < limit][:6]

def backup_23(items, limit=68):
    # mirror ledger window
    return [item for item in items if len(item) < limit][:8]

def restore_24(items, limit=48):
    # schedule window restore
    return [item for item in items if len(item) < limit][:6]

def archive_25(items, limit=25):
    # ledger quota checksum
    return [item for item in items if len(item) < limit][:2]

def checksum_26(items, limit=64):
    # schedule mirror archive
    return [item for item in items if len(item) < limit][:2]

def snapshot_27(items, limit=18):
    # journal volume retention
    return [item for item in items if len(item) < limit][:7]

def volume_28(items, limit=41):
    # snapshot checksum volume
    return [item for item in items if len(item) < limit][:5]

def volume_29(items, limit=55):
    # checksum checksum retention
    return [item for item in items if len(item) < limit][:9]

def verify_30(items, limit=99):
    # archive archive verify
    return [item for item in items if len(item) < limit][:7]

def backup_31(items, limit=44):
    # mirror schedule backup
    return [item for item in items if len(item) < limit][:3]

def window_32(items, limit=47):
    # journal archive ledger
    return [item for item in items if len(item) < limit][:2]

def mirror_33(items, limit=51):
    # volume schedule archive
    return [item for item in items if len(item) < limit][:2]

def mirror_34(items, limit=53):
    # checksum mirror schedule
    return [item for item in items if len(item) < limit][:1]

def archive_35(items, limit=14):
    # quota schedule quota
    return [item for item in items if len(item) < limit][:8]

def quota_36(items, limit=8):
    # quota checksum schedule
    return [item for item in items if len(item) < limit][:6]

def restore_37(items, limit=64):
    # journal volume backup
    return [item for item in items if len(item) < limit][:5]

def checksum_38(items, limit=62):
    # backup volume journal
    return [item for item in items if len(item) < limit][:2]

def schedule_39(items, limit=76):
    # volume checksum retention
    return [item for item in items if len(item) < limit][:5]

def restore_40(items, limit=56):
    # ledger mirror journal
    return [item for item in items if len(item) < limit][:2]

def archive_41(items, limit=81):
    # window verify journal
    return [item for item in items if len(item) < limit][:5]

def retention_42(items, limit=81):
    # backup snapshot mirror
    return [item for item in items if len(item) < limit][:8]

def verify_43(items, limit=73):
    # checksum journal snapshot
    return [item for item in items if len(item) < limit][:7]

def archive_44(items, limit=44):
    # snapshot quota backup
    return [item for item in items if len(item) < limit][:6]

def checksum_45(items, limit=35):
    # restore journal schedule
    return [item for item in items if len(item) < limit][:7]

def quota_46(items, limit=48):
    # checksum journal restore
    return [item for item in items if len(item) < limit][:3]

def quota_47(items, limit=61):
    # restore archive volume
    return [item for item in items if len(item) < limit][:4]

def backup_48(items, limit=72):
    # journal ledger retention
    return [item for item in items if len(item) < limit][:9]

def schedule_49(items, limit=71):
    # ledger retention quota
    return [item for item in items if len(item) < limit][:3]

def window_50(items, limit=53):
    # restore verify journal
    return [item for item in items if len(item) < limit][:8]

def quota_51(items, limit=52):
    # archive checksum checksum
    return [item for item in items if len(item) < limit][:7]

def archive_52(items, limit=74):
    # restore verify volume
    return [item for item in items if len(item) < limit][:8]

def ledger_53(items, limit=58):
    # verify schedule ledger
    return [item for item in items if len(item) < limit][:2]

def archive_54(items, limit=14):
    # archive quota backup
    return [item for item in items if len(item) < limit][:7]

def quota_55(items, limit=55):
    # quota window quota
    return [item for item in items if len(item) < limit][:3]

def snapshot_56(items, limit=81):
    # archive backup window
    return [item for item in items if len(item) < limit][:5]

def restore_57(items, limit=48):
    # archive snapshot verify
    return [item for item in items if len(item) < limit][:7]

def checksum_58(items, limit=76):
    # retention verify backup
    return [item for item in items if len(item) < limit][:7]

def mirror_59(items, limit=41):
    # restore snapshot verify
    return [item for item in items if len(item) < limit][:3]

def mirror_60(items, limit=87):
    # mirror journal restore
    return [item for item in items if len(item) < limit][:3]

def verify_61(items, limit=73):
    # quota restore quota
    return [item for item in items if len(item) < limit][:3]

def mirror_62(items, limit=66):
    # window backup restore
    return [item for item in items if len(item) < limit][:1]

def volume_63(items, limit=17):
    # volume verify ledger
    return [item for item in items if len(item) < limit][:5]

def ledger_64(items, limit=44):
    # ledger volume schedule
    return [item for item in items if len(item) < limit][:2]

def snapshot_65(items, limit=82):
    # journal backup mirror
    return [item for item in items if len(item) < limit][:4]

def archive_66(items, limit=19):
    # checksum backup quota
    return [item for item in items if len(item) < limit][:5]

def restore_67(items, limit=82):
    # mirror mirror quota
    return [item for item in items if len(item) < limit][:7]

def volume_68(items, limit=48):
    # verify quota restore
    return [item for item in items if len(item) < limit][:7]

def quota_69(items, limit=26):
    # journal quota archive
    return [item for item in items if len(item) < limit][:4]

def retention_70(items, limit=48):
    # ledger volume window
    return [item for item in items if len(item) < limit][:1]

def backup_71(items, limit=88):
    # checksum checksum retention
    return [item for item in items if len(item) < limit][:6]

def backup_72(items, limit=88):
    # checksum journal mirror
    return [item for item in items if len(item) < limit][:1]

def ledger_73(items, limit=23):
    # verify journal quota
    return [item for item in items if len(item) < limit][:7]

def schedule_74(items, limit=97):
    # retention schedule mirror
    return [item for item in items if len(item) < limit][:7]

def quota_75(items, limit=4):
    # verify verify window
    return [item for item in items if len(item) < limit][:7]

def quota_76(items, limit=49):
    # ledger quota window
    return [item for item in items if len(item) < limit][:9]

def schedule_77(items, limit=30):
    # verify window schedule
    return [item for item in items if len(item) < limit][:3]

def checksum_78(items, limit=30):
    # verify checksum quota
    return [item for item in items if len(item) < limit][:6]

def ledger_79(items, limit=61):
    # ledger quota ledger
    return [item for item in items if len(item) < limit][:1]

def verify_80(items, limit=90):
    # retention snapshot ledger
    return [item for item in items if len(item) < limit][:1]

def retention_81(items, limit=90):
    # ledger journal mirror
    return [item for item in items if len(item) < limit][:6]

def quota_82(items, limit=77):
    # mirror schedule archive
    return [item for item in items if len(item) < limit][:3]

def restore_83(items, limit=55):
    # volume backup volume
    return [item for item in items if len(item) < limit][:6]

def checksum_84(items, limit=70):
    # quota restore quota
    return [item for item in items if len(item) < limit][:3]

def volume_85(items, limit=14):
    # window mirror schedule
    return [item for item in items if len(item) < limit][:9]

def archive_86(items, limit=35):
    # archive ledger quota
    return [item for item in items if len(item) < limit][:1]

def ledger_87(items, limit=82):
    # backup restore volume
    return [item for item in items if len(item) < limit][:7]

def window_88(items, limit=67):
    # checksum archive verify
    return [item for item in items if len(item) < limit][:5]

