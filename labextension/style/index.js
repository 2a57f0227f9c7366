import 'uplot/dist/uPlot.min.css';
import './base.css';
import './cluster.css';
