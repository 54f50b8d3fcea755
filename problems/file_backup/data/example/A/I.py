PLAN = ["daily", "weekly"]
