import { editToolFront } from "./editor-fronts.js";
import { editorSuite } from "./editor-suite.js";

editorSuite(editToolFront);
