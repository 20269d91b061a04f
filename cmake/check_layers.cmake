# The layers and their one rule: a file may include headers of its own layer and of the layers it
# is allowed to see, nothing above. Run at build time (cmake -P, from CMakeLists.txt) so a wrong
# dependency fails the build with the file, the line and the two layers, before anything compiles.
# Tests (*_test.cpp) exercise across layers and are not checked.
#
#   layer      folders                         may include
#   base       core/base                       -
#   rules      core/rules                      base
#   scan       core/scan                       base rules
#   analysis   core/analysis                   base rules
#   report     core/report                     base rules scan analysis
#   transport  sources/transport               base
#   source     sources/*.hpp|cpp (interface)   base rules scan transport
#   kind       sources/<kind>/                 base rules scan transport source, its own folder
#   registry   sources/registry.*              source, every kind
#   store      core/store                      base rules scan analysis report
#   pipeline   core/pipeline                   everything above but store, cli and the kinds
#   serve      core/serve                      everything above but cli and the kinds
#   cli        cli/                            everything
#
# Usage: cmake -DSRC=<source dir> -DSTAMP=<file to touch on success> -P check_layers.cmake

cmake_minimum_required(VERSION 3.20)

set(allowed_base "")
set(allowed_rules base)
set(allowed_scan base rules)
set(allowed_analysis base rules)
set(allowed_report base rules scan analysis)
set(allowed_transport base)
set(allowed_source base rules scan transport)
set(allowed_kind base rules scan transport source)
set(allowed_registry base rules scan transport source kind)
set(allowed_store base rules scan analysis report)
set(allowed_pipeline base rules scan analysis report transport source registry)
set(allowed_serve base rules scan analysis report store transport source registry pipeline)
set(allowed_cli base rules scan analysis report store transport source registry pipeline serve)

# layer_of(<path relative to SRC> <out layer> <out kind folder>)
function(layer_of path out_layer out_kind)
  set(kind "")
  if(path MATCHES "^core/(base|rules|scan|analysis|report|store|pipeline|serve)/")
    set(layer ${CMAKE_MATCH_1})
  elseif(path MATCHES "^sources/transport/")
    set(layer transport)
  elseif(path MATCHES "^sources/registry\\.(hpp|cpp)$")
    set(layer registry)
  elseif(path MATCHES "^sources/[^/]+\\.(hpp|cpp)$")
    set(layer source)
  elseif(path MATCHES "^sources/([^/]+)/")
    set(layer kind)
    set(kind ${CMAKE_MATCH_1})
  elseif(path MATCHES "^cli/")
    set(layer cli)
  else()
    set(layer "")
  endif()
  set(${out_layer} ${layer} PARENT_SCOPE)
  set(${out_kind} ${kind} PARENT_SCOPE)
endfunction()

file(GLOB_RECURSE files RELATIVE ${SRC} ${SRC}/core/*.hpp ${SRC}/core/*.cpp ${SRC}/sources/*.hpp
     ${SRC}/sources/*.cpp ${SRC}/cli/*.hpp ${SRC}/cli/*.cpp)
list(SORT files)
set(violations "")
foreach(f ${files})
  if(f MATCHES "_test\\.cpp$")
    continue()
  endif()
  layer_of(${f} from from_kind)
  file(STRINGS ${SRC}/${f} includes REGEX "^#include \"")
  set(n 0)
  foreach(inc ${includes})
    string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" header "${inc}")
    layer_of(${header} to to_kind)
    if("${to}" STREQUAL "" OR ("${to}" STREQUAL "${from}" AND "${from_kind}" STREQUAL "${to_kind}"))
      continue()
    endif()
    set(ok FALSE)
    if(to IN_LIST allowed_${from})
      set(ok TRUE)
    endif()
    if(from STREQUAL "kind" AND to STREQUAL "kind")
      set(ok FALSE)  # one kind never reaches into another's folder
    endif()
    if(NOT ok)
      set(what_from ${from})
      if(from_kind)
        set(what_from "${from} ${from_kind}")
      endif()
      set(what_to ${to})
      if(to_kind)
        set(what_to "${to} ${to_kind}")
      endif()
      string(APPEND violations "  ${f}: includes ${header}: layer '${what_from}' may not depend on '${what_to}'\n")
    endif()
  endforeach()
endforeach()
if(violations)
  message(FATAL_ERROR "Layer check failed (cmake/check_layers.cmake, docs/architecture.md):\n${violations}"
                      "Move the code to the lower layer, or pass what it needs down through an interface.")
endif()
if(STAMP)
  file(TOUCH ${STAMP})
endif()
