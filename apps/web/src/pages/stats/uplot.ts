/**
 * uPlot and its stylesheet, one chunk of their own: the statistics pages load this module with
 * `import()`, so the library never weighs on the dashboard's first load.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export default uPlot;
