-- @query: Forgets what a source's input files held, before input_files_store records them anew;
--   between the two the files read as never seen, so a run stopped there reads them all again.
-- @param source: the source.
DELETE FROM bookkeeping.input_files WHERE source = $source
