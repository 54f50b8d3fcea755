module industry

go 1.22
