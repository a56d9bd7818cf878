import { render } from "preact";
import "katex/dist/katex.min.css";
import "./style.css";
import { App } from "./App";
import { model } from "./model";
import { narrowFromLocation } from "./navigate";
import { start } from "./live";

model.narrow = narrowFromLocation();
render(<App />, document.getElementById("app")!);
void start();
