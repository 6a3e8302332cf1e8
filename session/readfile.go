package session

// Reading a whole session file. A long session's file is over 100 MB, and
// most of the time reading it goes to the kernel copying it into fresh
// memory (and faulting that memory in): a large file is read in parts at
// the same time, into memory advised to be backed by huge pages.

import (
	"io"
	"os"
	"sync"
)

// readParallelMin is the size from which a file is read in parts at the
// same time, one per decode worker. (A variable for tests.)
var readParallelMin = 8 << 20

// readFile reads the whole file at path, as os.ReadFile does.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var size int64
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && int64(int(fi.Size())) == fi.Size() {
		size = fi.Size()
	}
	// Room for a few bytes appended since Stat without growing.
	data := make([]byte, 0, size+512)
	if n := decodeWorkers(); size >= int64(readParallelMin) && n >= 2 {
		data = data[:size]
		adviseHugePages(data[:cap(data)])
		read := make([]int, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			start, end := size*int64(i)/int64(n), size*int64(i+1)/int64(n)
			wg.Go(func() { read[i], errs[i] = f.ReadAt(data[start:end], start) })
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil && errs[i] != io.EOF {
				return nil, errs[i]
			}
			if errs[i] == io.EOF {
				// The file shrank since Stat: what was read up to here is
				// all of it.
				end := size * int64(i) / int64(n)
				data = data[:end+int64(read[i])]
				return data, nil
			}
		}
		if _, err := f.Seek(size, io.SeekStart); err != nil {
			return nil, err
		}
	}
	// The rest (all of a small file): as os.ReadFile.
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
