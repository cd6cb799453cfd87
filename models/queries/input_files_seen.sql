-- @query: What a source's input files held when it last read them (bookkeeping.input_files).
-- @param source: the source.
SELECT entry FROM bookkeeping.input_files WHERE source = $source
