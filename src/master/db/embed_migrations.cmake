# Generates a C++ source embedding every migrations/<dialect>/NNNN_name.sql file.
# Inputs: DIR (folder of .sql files), OUT (generated .cc), FUNC (function name).
file(GLOB files "${DIR}/*.sql")
list(SORT files)
set(body "")
foreach(f ${files})
  get_filename_component(name ${f} NAME_WE)
  string(REGEX MATCH "^[0-9]+" version ${name})
  math(EXPR version "${version} + 0")
  file(READ ${f} sql)
  string(APPEND body "    {${version}, \"${name}\", R\"det_sql(${sql})det_sql\"},\n")
endforeach()
file(WRITE ${OUT}.tmp "#include \"master/db/migrations.h\"\n\nnamespace det::master {\n\nconst std::vector<Migration>& ${FUNC}() {\n  static const std::vector<Migration> migrations = {\n${body}  };\n  return migrations;\n}\n\n}  // namespace det::master\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
