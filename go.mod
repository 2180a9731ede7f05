module github.com/freeact/desktop

go 1.26
