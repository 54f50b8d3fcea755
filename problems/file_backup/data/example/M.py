import shutil
